package io.activityservice.rules.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Stores rule sets in the {@code rule} table (Flyway {@code V3__rules.sql}). */
public class RuleRepository {

  private final JdbcClient jdbc;

  public RuleRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public List<RuleDefinition> findAll() {
    return jdbc.sql("select * from rule order by name").query(this::map).list();
  }

  public Optional<RuleDefinition> find(String name) {
    return jdbc.sql("select * from rule where name = ?").param(name).query(this::map).optional();
  }

  /** @throws org.springframework.dao.DuplicateKeyException if the name is taken */
  public void insert(RuleDefinition r) {
    jdbc.sql("insert into rule (name, drl, version, created_at, updated_at, partition_by) values (?, ?, ?, ?, ?, ?)")
        .params(r.name(), r.drl(), r.version(), r.createdAt(), r.updatedAt(), r.partitionBy())
        .update();
  }

  /** Replaces the DRL if the stored version is still {@code expectedVersion}; false if it changed meanwhile. */
  public boolean update(RuleDefinition r, long expectedVersion) {
    return jdbc.sql("update rule set drl = ?, version = ?, updated_at = ?, partition_by = ? where name = ?"
            + " and version = ?")
        .params(r.drl(), r.version(), r.updatedAt(), r.partitionBy(), r.name(), expectedVersion)
        .update() == 1;
  }

  public boolean delete(String name) {
    return jdbc.sql("delete from rule where name = ?").param(name).update() == 1;
  }

  private RuleDefinition map(ResultSet rs, int row) throws SQLException {
    return new RuleDefinition(rs.getString("name"), rs.getString("drl"), rs.getLong("version"),
        rs.getObject("created_at", OffsetDateTime.class), rs.getObject("updated_at", OffsetDateTime.class),
        rs.getString("partition_by"));
  }
}
