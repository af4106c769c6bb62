package io.activityservice.events.archive;

import io.activityservice.events.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Stores archives in the {@code archive} table. */
class ArchiveRepository {

  private final JdbcClient jdbc;

  public ArchiveRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public List<Archive> findAll() {
    return jdbc.sql("select * from archive order by name").query(ArchiveRepository::map).list();
  }

  public Optional<Archive> find(String name) {
    return jdbc.sql("select * from archive where name = ?")
        .param(name)
        .query(ArchiveRepository::map)
        .optional();
  }

  /**
   * The next archive id (call inside the configuration change's transaction, which serialises it).
   */
  public long nextId() {
    return jdbc.sql("select coalesce(max(id), 0) + 1 from archive").query(Long.class).single();
  }

  /** Inserts; false if the name is taken. */
  public boolean insert(Archive a) {
    if (find(a.name()).isPresent()) {
      return false;
    }
    jdbc.sql(
            "insert into archive (name, id, pattern_json, retention_ms, created_at, event_count, size_bytes)"
                + " values (?, ?, ?, ?, ?, 0, 0)")
        .params(
            a.name(),
            a.id(),
            a.pattern() == null ? null : Json.write(a.pattern()),
            a.retention().toMillis(),
            a.createdAt())
        .update();
    return true;
  }

  public boolean delete(String name) {
    return jdbc.sql("delete from archive where name = ?").param(name).update() == 1;
  }

  /** Adds what a write batch archived. */
  public void addCounts(long id, long events, long bytes) {
    jdbc.sql(
            "update archive set event_count = event_count + ?, size_bytes = size_bytes + ? where id = ?")
        .params(events, bytes, id)
        .update();
  }

  /** Sets the counts after retention dropped events. */
  public void setCounts(long id, long events, long bytes) {
    jdbc.sql("update archive set event_count = ?, size_bytes = ? where id = ?")
        .params(events, bytes, id)
        .update();
  }

  private static Archive map(ResultSet rs, int row) throws SQLException {
    String pattern = rs.getString("pattern_json");
    return new Archive(
        rs.getString("name"),
        rs.getLong("id"),
        pattern == null ? null : Json.parse(pattern, "pattern"),
        Duration.ofMillis(rs.getLong("retention_ms")),
        rs.getLong("created_at"),
        rs.getLong("event_count"),
        rs.getLong("size_bytes"));
  }
}
