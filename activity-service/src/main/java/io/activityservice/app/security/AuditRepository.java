package io.activityservice.app.security;

import io.activityservice.app.security.AuditLog.Entry;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Stores the audit log in {@code audit_event}. */
class AuditRepository {

  /**
   * Position after which a page starts (newest first): time and id of the last entry of the
   * previous page.
   */
  public record Cursor(long at, String id) {}

  private final JdbcClient jdbc;

  AuditRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public void insert(Entry e) {
    jdbc.sql(
            """
            insert into audit_event (id, occurred_at, actor, action, resource_kind, resource_id, outcome, status)
            values (?, ?, ?, ?, ?, ?, ?, ?)""")
        .params(
            e.id(),
            e.time().toInstant().toEpochMilli(),
            e.actor(),
            e.action(),
            e.resourceKind(),
            e.resourceId(),
            e.outcome(),
            e.status())
        .update();
  }

  /** Up to {@code limit} entries, newest first, after {@code cursor} (null: from the newest). */
  public List<Entry> page(Cursor cursor, int limit) {
    if (cursor == null) {
      return jdbc.sql("select * from audit_event order by occurred_at desc, id desc limit ?")
          .param(limit)
          .query(this::map)
          .list();
    }
    return jdbc.sql(
            """
            select * from audit_event where occurred_at < ? or (occurred_at = ? and id < ?)
            order by occurred_at desc, id desc limit ?""")
        .params(cursor.at(), cursor.at(), cursor.id(), limit)
        .query(this::map)
        .list();
  }

  private Entry map(ResultSet rs, int row) throws SQLException {
    return new Entry(
        rs.getString("id"),
        OffsetDateTime.ofInstant(Instant.ofEpochMilli(rs.getLong("occurred_at")), ZoneOffset.UTC),
        rs.getString("actor"),
        rs.getString("action"),
        rs.getString("resource_kind"),
        rs.getString("resource_id"),
        rs.getString("outcome"),
        rs.getInt("status"));
  }
}
