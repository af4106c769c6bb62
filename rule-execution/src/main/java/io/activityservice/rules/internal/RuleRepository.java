package io.activityservice.rules.internal;

import io.activityservice.events.definition.DefinitionStore;
import io.activityservice.rules.store.RuleDefinition;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Stores rule sets in the {@code rule} table (Flyway {@code V3__rules.sql}; the author's scope
 * since {@code V8_1__rule_author_scope.sql}, a JSON array of patterns, NULL for unscoped).
 */
public class RuleRepository implements DefinitionStore<RuleDefinition> {

  private final JdbcClient jdbc;

  public RuleRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public List<RuleDefinition> findAll() {
    return jdbc.sql("select * from rule order by name").query(this::map).list();
  }

  @Override
  public Optional<RuleDefinition> find(String name) {
    return jdbc.sql("select * from rule where name = ?").param(name).query(this::map).optional();
  }

  /** Inserts; false if a rule set of that name exists. */
  public boolean insert(RuleDefinition r) {
    return insert(r, null);
  }

  /**
   * Inserts (rule sets have no stored compiled form: each replica compiles); false if the name is
   * taken.
   */
  @Override
  public boolean insert(RuleDefinition r, String compiledForm) {
    try {
      jdbc.sql(
              "insert into rule (name, drl, version, created_at, updated_at, partition_by, author_scope)"
                  + " values (?, ?, ?, ?, ?, ?, ?)")
          .params(
              r.name(),
              r.drl(),
              r.version(),
              r.createdAt(),
              r.updatedAt(),
              r.partitionBy(),
              DefinitionStore.writeScope(r.authorScope()))
          .update();
      return true;
    } catch (DuplicateKeyException e) {
      return false;
    }
  }

  /**
   * Replaces the DRL if the stored version is still {@code expectedVersion}; false if it changed
   * meanwhile.
   */
  @Override
  public boolean update(RuleDefinition r, long expectedVersion) {
    return jdbc.sql(
                "update rule set drl = ?, version = ?, updated_at = ?, partition_by = ?, author_scope = ?"
                    + " where name = ? and version = ?")
            .params(
                r.drl(),
                r.version(),
                r.updatedAt(),
                r.partitionBy(),
                DefinitionStore.writeScope(r.authorScope()),
                r.name(),
                expectedVersion)
            .update()
        == 1;
  }

  @Override
  public boolean delete(String name) {
    return jdbc.sql("delete from rule where name = ?").param(name).update() == 1;
  }

  private RuleDefinition map(ResultSet rs, int row) throws SQLException {
    return new RuleDefinition(
        rs.getString("name"),
        rs.getString("drl"),
        rs.getLong("version"),
        rs.getObject("created_at", OffsetDateTime.class),
        rs.getObject("updated_at", OffsetDateTime.class),
        rs.getString("partition_by"),
        DefinitionStore.readScope(rs.getString("author_scope")));
  }
}
