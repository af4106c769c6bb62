package io.activityservice.events.registry;

import io.activityservice.events.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Stores event types in the {@code event_type} table. */
public class EventTypeRepository {

  private final JdbcClient jdbc;

  public EventTypeRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public List<EventType> findAll() {
    return jdbc.sql("select * from event_type order by type").query(this::map).list();
  }

  public Optional<EventType> find(String type) {
    return jdbc.sql("select * from event_type where type = ?")
        .param(type)
        .query(this::map)
        .optional();
  }

  /** Types whose name starts with {@code q} or whose description contains it (case-insensitive). */
  public List<EventType> search(String q) {
    String lower = q.toLowerCase(Locale.ROOT);
    return jdbc.sql(
            """
            select * from event_type
            where lower(type) like ? escape '\\' or lower(description) like ? escape '\\'
            order by type""")
        .param(escapeLike(lower) + "%")
        .param("%" + escapeLike(lower) + "%")
        .query(this::map)
        .list();
  }

  /**
   * Inserts a new type; returns false if the type exists already (also when a concurrent insert
   * won).
   */
  public boolean insert(EventType t) {
    if (find(t.type()).isPresent()) {
      return false;
    }
    try {
      return insertRow(t);
    } catch (DuplicateKeyException concurrentInsert) {
      return false;
    }
  }

  private boolean insertRow(EventType t) {
    jdbc.sql(
            """
            insert into event_type (type, description, owner, schema_json, version, created_at, updated_at)
            values (?, ?, ?, ?, ?, ?, ?)""")
        .params(
            t.type(),
            t.description(),
            t.owner(),
            Json.write(t.schema()),
            t.version(),
            t.createdAt(),
            t.updatedAt())
        .update();
    return true;
  }

  /** Updates a type if its stored version is {@code expectedVersion}; false otherwise. */
  public boolean update(EventType t, long expectedVersion) {
    return jdbc.sql(
                """
            update event_type set description = ?, owner = ?, schema_json = ?, version = ?, updated_at = ?
            where type = ? and version = ?""")
            .params(
                t.description(),
                t.owner(),
                Json.write(t.schema()),
                t.version(),
                t.updatedAt(),
                t.type(),
                expectedVersion)
            .update()
        == 1;
  }

  public boolean delete(String type) {
    return jdbc.sql("delete from event_type where type = ?").param(type).update() == 1;
  }

  private EventType map(ResultSet rs, int row) throws SQLException {
    String schema = rs.getString("schema_json");
    return new EventType(
        rs.getString("type"),
        rs.getString("description"),
        rs.getString("owner"),
        schema == null ? null : Json.parse(schema, "schema"),
        rs.getLong("version"),
        rs.getObject("created_at", OffsetDateTime.class),
        rs.getObject("updated_at", OffsetDateTime.class));
  }

  private static String escapeLike(String s) {
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
  }
}
