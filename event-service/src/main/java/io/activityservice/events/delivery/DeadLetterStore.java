package io.activityservice.events.delivery;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The dead letters ({@code dead_letter}): deliveries given up on, and events that never could be
 * delivered (e.g. invalid inbound messages). Browsed page by page, redriven into the retry cycle,
 * purged after their retention. Rows arrive here from the retry cycle through {@link
 * DeliveryStore#bury} and {@link DeliveryStore#evictOldest}.
 *
 * <p>All methods block on JDBC: call them from the store's own threads or from request threads.
 */
public final class DeadLetterStore {

  static final String DEAD_COLUMNS =
      "id, subscription_id, origin, event_id, event_source, event_type, "
          + "event_json, attempts, reason, received_at, dead_lettered_at, shaped";

  /** A position in the dead-letter list: the last item of the previous page. */
  public record Cursor(long deadLetteredAt, String id) {}

  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;

  DeadLetterStore(StoreDatabase db) {
    this.jdbc = db.jdbc();
    this.tx = db.tx();
  }

  /** Inserts dead letters that never were parked (e.g. invalid inbound events). */
  public void insert(List<DeadLetterRecord> records) {
    tx.executeWithoutResult(
        s ->
            jdbc.batchUpdate(
                "insert into dead_letter ("
                    + DEAD_COLUMNS
                    + ") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                records,
                records.size(),
                (ps, r) -> {
                  ps.setString(1, r.id());
                  ps.setString(2, r.subscriptionId());
                  ps.setString(3, StoreDatabase.cut(r.origin()));
                  ps.setString(4, r.eventId());
                  ps.setString(5, r.eventSource());
                  ps.setString(6, r.eventType());
                  ps.setString(7, r.eventJson());
                  ps.setInt(8, r.attempts());
                  ps.setString(9, StoreDatabase.cut(r.reason()));
                  ps.setLong(10, r.receivedAt());
                  ps.setLong(11, r.deadLetteredAt());
                  ps.setBoolean(12, r.shaped());
                }));
  }

  /**
   * A page of dead letters, oldest first.
   *
   * @param subscriptionId only this subscription's, or {@code null} for all
   * @param after the last item of the previous page, or {@code null}
   */
  public List<DeadLetterRecord> page(String subscriptionId, Cursor after, int limit) {
    StringBuilder sql =
        new StringBuilder("select " + DEAD_COLUMNS + " from dead_letter where 1 = 1");
    List<Object> args = new ArrayList<>();
    if (subscriptionId != null) {
      sql.append(" and subscription_id = ?");
      args.add(subscriptionId);
    }
    if (after != null) {
      sql.append(" and (dead_lettered_at > ? or (dead_lettered_at = ? and id > ?))");
      args.addAll(List.of(after.deadLetteredAt(), after.deadLetteredAt(), after.id()));
    }
    sql.append(" order by dead_lettered_at, id fetch first ? rows only");
    args.add(limit);
    return jdbc.query(sql.toString(), DeadLetterStore::dead, args.toArray());
  }

  /** Dead letters of a subscription. */
  public long count(String subscriptionId) {
    Long n =
        jdbc.queryForObject(
            "select count(*) from dead_letter where subscription_id = ?",
            Long.class,
            subscriptionId);
    return n == null ? 0 : n;
  }

  /**
   * Moves dead letters of a subscription back into the retry cycle, due at once with a fresh
   * attempt count and {@code retry.maxAge} counted from now. At most {@code max} of them, oldest
   * first.
   *
   * @param ids only these dead letters, or {@code null} for the oldest ones
   * @return the ids redriven
   */
  public List<String> redrive(String subscriptionId, List<String> ids, int max, long now) {
    return tx.execute(
        s -> {
          StringBuilder select =
              new StringBuilder("select id from dead_letter where subscription_id = ?");
          List<Object> args = new ArrayList<>(List.of(subscriptionId));
          if (ids != null) {
            if (ids.isEmpty()) {
              return List.<String>of();
            }
            select
                .append(" and id in (")
                .append(StoreDatabase.placeholders(ids.size()))
                .append(')');
            args.addAll(ids);
          }
          select.append(" order by dead_lettered_at, id fetch first ? rows only for update");
          args.add(max);
          List<String> chosen = jdbc.queryForList(select.toString(), String.class, args.toArray());
          if (chosen.isEmpty()) {
            return List.<String>of();
          }
          String in = StoreDatabase.placeholders(chosen.size());
          List<Object> insertArgs = new ArrayList<>(List.of(now, now, now));
          insertArgs.addAll(chosen);
          jdbc.update(
              "insert into parked_delivery (id, subscription_id, phase, event_id, event_source, event_type,"
                  + " event_json, attempts, received_at, next_attempt_at, created_at, shaped) select id, subscription_id,"
                  + " 'RETRY', event_id, event_source, event_type, event_json, 0, ?, ?, ?, shaped from dead_letter"
                  + " where id in ("
                  + in
                  + ")",
              insertArgs.toArray());
          jdbc.update("delete from dead_letter where id in (" + in + ")", chosen.toArray());
          return chosen;
        });
  }

  /** Deletes dead letters older than {@code before} (epoch ms); returns how many. */
  public int purgeOlderThan(long before) {
    return jdbc.update("delete from dead_letter where dead_lettered_at < ?", before);
  }

  private static DeadLetterRecord dead(ResultSet rs, int row) throws SQLException {
    return new DeadLetterRecord(
        rs.getString("id"),
        rs.getString("subscription_id"),
        rs.getString("origin"),
        rs.getString("event_id"),
        rs.getString("event_source"),
        rs.getString("event_type"),
        rs.getString("event_json"),
        rs.getInt("attempts"),
        rs.getString("reason"),
        rs.getLong("received_at"),
        rs.getLong("dead_lettered_at"),
        rs.getBoolean("shaped"));
  }
}
