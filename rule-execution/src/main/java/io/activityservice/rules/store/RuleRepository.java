package io.activityservice.rules.store;

import io.activityservice.events.json.Json;
import io.activityservice.events.scope.TypeScope;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Stores rule sets in the {@code rule} table (Flyway {@code V3__rules.sql}; the author's scope since
 * {@code V8_1__rule_author_scope.sql}, a JSON array of patterns, NULL for unscoped).
 */
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
    jdbc.sql("insert into rule (name, drl, version, created_at, updated_at, partition_by, author_scope)"
            + " values (?, ?, ?, ?, ?, ?, ?)")
        .params(r.name(), r.drl(), r.version(), r.createdAt(), r.updatedAt(), r.partitionBy(), scope(r.authorScope()))
        .update();
  }

  /** Replaces the DRL if the stored version is still {@code expectedVersion}; false if it changed meanwhile. */
  public boolean update(RuleDefinition r, long expectedVersion) {
    return jdbc.sql("update rule set drl = ?, version = ?, updated_at = ?, partition_by = ?, author_scope = ?"
            + " where name = ? and version = ?")
        .params(r.drl(), r.version(), r.updatedAt(), r.partitionBy(), scope(r.authorScope()), r.name(), expectedVersion)
        .update() == 1;
  }

  public boolean delete(String name) {
    return jdbc.sql("delete from rule where name = ?").param(name).update() == 1;
  }

  private RuleDefinition map(ResultSet rs, int row) throws SQLException {
    return new RuleDefinition(rs.getString("name"), rs.getString("drl"), rs.getLong("version"),
        rs.getObject("created_at", OffsetDateTime.class), rs.getObject("updated_at", OffsetDateTime.class),
        rs.getString("partition_by"), scope(rs.getString("author_scope")));
  }

  /** The stored form of a scope: a JSON array of its patterns, or NULL for unscoped. */
  static String scope(TypeScope scope) {
    return scope == null ? null : Json.write(Json.tree(scope.patterns()));
  }

  /** A stored scope; NULL (unscoped) stays null. */
  static TypeScope scope(String stored) {
    if (stored == null) {
      return null;
    }
    java.util.List<String> patterns = new java.util.ArrayList<>();
    Json.parse(stored, "author_scope").forEach(p -> patterns.add(p.asText()));
    return TypeScope.of(patterns, "author_scope");
  }
}
