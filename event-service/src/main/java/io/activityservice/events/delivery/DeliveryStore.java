package io.activityservice.events.delivery;

import io.activityservice.events.delivery.ParkedDelivery.Phase;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The durable side of delivery, in the service's own database (H2 or PostgreSQL): parked deliveries
 * waiting for a retry ({@code parked_delivery}), and their way into the dead letters. The dead
 * letters themselves ({@code dead_letter}: browse, redrive, purge) are the {@link
 * DeadLetterStore}'s; the database's dialect, durable commits and notifications the {@link
 * StoreDatabase}'s.
 *
 * <p>Several replicas share the tables. A replica <em>claims</em> due rows with {@code SELECT … FOR
 * UPDATE SKIP LOCKED} (so two replicas never take the same row) and marks them with a lease ({@code
 * locked_by}, {@code locked_until}) and a fresh {@code lock_token}. Every later write of an
 * attempt's result is fenced by that token: if the lease ran out and another replica claimed the
 * row meanwhile, the late result changes nothing. A crashed replica's rows become due again when
 * their lease ends.
 *
 * <p>All methods block on JDBC: call them from the store's own threads ({@link StoreWriter}, {@link
 * RetryWorker}) or from request threads, never from adapter callbacks.
 */
public class DeliveryStore {

  private static final String PARKED_COLUMNS =
      "id, subscription_id, phase, event_id, event_source, event_type, "
          + "event_json, attempts, received_at, next_attempt_at, last_error, dead_letter_reason, lock_token, created_at, shaped, ordering_key, blocking_since";

  /**
   * Rows the retry worker may claim: unordered ones, and of an ordered subscription's rows only the
   * head of each key (no earlier RETRY row of the same subscription and key). The subquery walks
   * the {@code parked_delivery_ordering} index; a row given up (DEAD_LETTER phase) no longer holds
   * up its key.
   */
  private static final String HEAD_OF_KEY =
      " and (p.ordering_key is null or not exists (select 1 from parked_delivery h"
          + " where h.subscription_id = p.subscription_id and h.ordering_key = p.ordering_key"
          + " and h.phase = 'RETRY' and h.seq < p.seq))";

  /** Pending deliveries of one subscription. */
  public record PendingStats(
      long pending,
      long deadLetterPhase,
      Long oldestCreatedAt,
      Long nextAttemptAt,
      String lastError,
      Long lastAttemptAt) {}

  private final StoreDatabase db;
  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;
  private final DeadLetterStore deadLetters;

  public DeliveryStore(DataSource dataSource) {
    this.db = new StoreDatabase(dataSource);
    this.jdbc = db.jdbc();
    this.tx = db.tx();
    this.deadLetters = new DeadLetterStore(db);
  }

  /** The database the tables live in (its dialect, durable commits, PostgreSQL notifications). */
  StoreDatabase database() {
    return db;
  }

  /** The dead letters ({@code dead_letter}): browsed, redriven, purged. */
  public DeadLetterStore deadLetters() {
    return deadLetters;
  }

  // ------------------------------------------------------------------ parking

  /**
   * A row to insert, and the lease it is inserted under ({@code null} lockedBy: free for any
   * replica).
   */
  public record Park(ParkedDelivery row, String lockedBy, Long lockedUntil) {}

  /**
   * Inserts parked deliveries in one transaction. On PostgreSQL, if any of them is free for every
   * replica to claim, the other replicas are notified at commit (their retry workers may be asleep
   * until later).
   */
  public void park(List<Park> parks) {
    boolean free = parks.stream().anyMatch(p -> p.lockedBy() == null);
    tx.executeWithoutResult(
        s -> {
          insert(parks);
          if (free && db.isPostgres()) {
            jdbc.queryForList(
                io.activityservice.events.internal.PgNotifications.notifySql(
                    StoreDatabase.DUE_CHANNEL));
          }
        });
  }

  private void insert(List<Park> parks) {
    jdbc.batchUpdate(
        "insert into parked_delivery ("
            + PARKED_COLUMNS
            + ", locked_by, locked_until) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        parks,
        parks.size(),
        (ps, p) -> {
          ParkedDelivery r = p.row();
          ps.setString(1, r.id());
          ps.setString(2, r.subscriptionId());
          ps.setString(3, r.phase().name());
          ps.setString(4, r.eventId());
          ps.setString(5, r.eventSource());
          ps.setString(6, r.eventType());
          ps.setString(7, r.eventJson());
          ps.setInt(8, r.attempts());
          ps.setLong(9, r.receivedAt());
          ps.setLong(10, r.nextAttemptAt());
          ps.setString(11, StoreDatabase.cut(r.lastError()));
          ps.setString(12, StoreDatabase.cut(r.deadLetterReason()));
          ps.setString(13, r.lockToken());
          ps.setLong(14, r.createdAt());
          ps.setBoolean(15, r.shaped());
          ps.setString(16, r.orderingKey());
          setLong(ps, 17, r.blockingSince());
          ps.setString(18, p.lockedBy());
          setLong(ps, 19, p.lockedUntil());
        });
  }

  // ------------------------------------------------------------------ claiming

  /**
   * When the next delivery not leased by anyone becomes due: the earliest {@code next_attempt_at}
   * among rows free to claim (walks the {@code next_attempt_at} index and stops at the first free
   * row), or {@code null} if there is none. Rows leased now are left out: this replica hears when
   * its own end, and another replica's lease ending (a crash) is found by the retry worker's
   * periodic check.
   */
  public Long nextDue(long now) {
    List<Long> due =
        jdbc.queryForList(
            "select p.next_attempt_at from parked_delivery p"
                + " where (p.locked_until is null or p.locked_until < ?)"
                + HEAD_OF_KEY
                + " order by p.next_attempt_at fetch first 1 rows only",
            Long.class,
            now);
    return due.isEmpty() ? null : due.get(0);
  }

  /**
   * Claims up to {@code max} due deliveries for this replica: each gets a fresh lock token and a
   * lease until {@code leaseUntil}; a {@link Phase#RETRY} row counts the attempt it is claimed for.
   *
   * @param skipSubscriptions subscriptions this replica has no free attempt slot for (left for
   *     later or others)
   */
  public List<ParkedDelivery> claim(
      int max, long now, String replica, long leaseUntil, Collection<String> skipSubscriptions) {
    StringBuilder sql =
        new StringBuilder(
            "select "
                + PARKED_COLUMNS
                + " from parked_delivery p"
                + " where p.next_attempt_at <= ? and (p.locked_until is null or p.locked_until < ?)"
                + HEAD_OF_KEY);
    List<Object> args = new ArrayList<>(List.of(now, now));
    if (!skipSubscriptions.isEmpty()) {
      sql.append(" and p.subscription_id not in (")
          .append(StoreDatabase.placeholders(skipSubscriptions.size()))
          .append(')');
      args.addAll(skipSubscriptions);
    }
    sql.append(" order by p.next_attempt_at fetch first ? rows only for update skip locked");
    args.add(max);
    return tx.execute(
        s -> {
          List<ParkedDelivery> due =
              jdbc.query(sql.toString(), DeliveryStore::parked, args.toArray());
          if (due.isEmpty()) {
            return List.of();
          }
          List<ParkedDelivery> claimed = new ArrayList<>(due.size());
          for (ParkedDelivery d : due) {
            claimed.add(
                d.claimed(
                    UUID.randomUUID().toString(),
                    d.phase() == Phase.RETRY ? d.attempts() + 1 : d.attempts(),
                    now));
          }
          jdbc.batchUpdate(
              "update parked_delivery set locked_by = ?, lock_token = ?, locked_until = ?, attempts = ?,"
                  + " blocking_since = ? where id = ?",
              claimed,
              claimed.size(),
              (ps, d) -> {
                ps.setString(1, replica);
                ps.setString(2, d.lockToken());
                ps.setLong(3, leaseUntil);
                ps.setInt(4, d.attempts());
                setLong(ps, 5, d.blockingSince());
                ps.setString(6, d.id());
              });
          return claimed;
        });
  }

  // ------------------------------------------------------------------ settling (fenced by the lock
  // token)

  /** A fenced reference to a claimed row. */
  public record Claim(String id, String lockToken) {}

  /** Deletes delivered rows; rows whose lease was lost are left alone. Returns the rows deleted. */
  public int delete(List<Claim> claims) {
    return sum(
        tx.execute(
            s ->
                jdbc.batchUpdate(
                    "delete from parked_delivery where id = ? and lock_token = ?",
                    claims,
                    claims.size(),
                    (ps, c) -> {
                      ps.setString(1, c.id());
                      ps.setString(2, c.lockToken());
                    })));
  }

  /**
   * A claimed row to release until its next attempt.
   *
   * @param attempts the attempt count to store, or {@code null} to keep it (a claim that made no
   *     attempt passes the count from before the claim)
   */
  public record Reschedule(
      Claim claim, long nextAttemptAt, String error, long attemptedAt, Integer attempts) {}

  /** Releases claimed rows until their next attempt. */
  public void reschedule(List<Reschedule> changes) {
    tx.executeWithoutResult(
        s ->
            jdbc.batchUpdate(
                "update parked_delivery set next_attempt_at = ?, last_error = ?,"
                    + " last_attempt_at = ?, attempts = coalesce(?, attempts), locked_by = null, lock_token = null,"
                    + " locked_until = null where id = ? and lock_token = ?",
                changes,
                changes.size(),
                (ps, r) -> {
                  ps.setLong(1, r.nextAttemptAt());
                  ps.setString(2, StoreDatabase.cut(r.error()));
                  ps.setLong(3, r.attemptedAt());
                  if (r.attempts() == null) {
                    ps.setNull(4, Types.INTEGER);
                  } else {
                    ps.setInt(4, r.attempts());
                  }
                  ps.setString(5, r.claim().id());
                  ps.setString(6, r.claim().lockToken());
                }));
  }

  /** A delivery given up, to hand to the dead-letter channel next. */
  public record GiveUp(Claim claim, String reason, String error, long at) {}

  /** Moves claimed rows to the {@link Phase#DEAD_LETTER} phase, due at once. */
  public void toDeadLetterPhase(List<GiveUp> changes) {
    tx.executeWithoutResult(
        s ->
            jdbc.batchUpdate(
                "update parked_delivery set phase = 'DEAD_LETTER',"
                    + " dead_letter_reason = ?, last_error = ?, last_attempt_at = ?, next_attempt_at = ?, locked_by = null,"
                    + " lock_token = null, locked_until = null where id = ? and lock_token = ?",
                changes,
                changes.size(),
                (ps, g) -> {
                  ps.setString(1, StoreDatabase.cut(g.reason()));
                  ps.setString(2, StoreDatabase.cut(g.error()));
                  ps.setLong(3, g.at());
                  ps.setLong(4, g.at());
                  ps.setString(5, g.claim().id());
                  ps.setString(6, g.claim().lockToken());
                }));
  }

  /** A claimed row to keep as a dead letter. */
  public record Bury(Claim claim, String origin, String reason, long at) {}

  /** Moves claimed rows into {@code dead_letter}, each in one transaction with its delete. */
  public void bury(List<Bury> burials) {
    tx.executeWithoutResult(
        s -> {
          jdbc.batchUpdate(
              "insert into dead_letter ("
                  + DeadLetterStore.DEAD_COLUMNS
                  + ") select id, subscription_id, ?, event_id,"
                  + " event_source, event_type, event_json, attempts, ?, received_at, ?, shaped from parked_delivery"
                  + " where id = ? and lock_token = ?",
              burials,
              burials.size(),
              (ps, b) -> {
                ps.setString(1, StoreDatabase.cut(b.origin()));
                ps.setString(2, StoreDatabase.cut(b.reason()));
                ps.setLong(3, b.at());
                ps.setString(4, b.claim().id());
                ps.setString(5, b.claim().lockToken());
              });
          jdbc.batchUpdate(
              "delete from parked_delivery where id = ? and lock_token = ?",
              burials,
              burials.size(),
              (ps, b) -> {
                ps.setString(1, b.claim().id());
                ps.setString(2, b.claim().lockToken());
              });
        });
  }

  // ------------------------------------------------------------------ bounds and housekeeping

  /** Deliveries waiting for a retry ({@link Phase#RETRY}) of one subscription. */
  public long pendingRetries(String subscriptionId) {
    Long n =
        jdbc.queryForObject(
            "select count(*) from parked_delivery where subscription_id = ? and phase = 'RETRY'",
            Long.class,
            subscriptionId);
    return n == null ? 0 : n;
  }

  /**
   * Takes the oldest unclaimed {@link Phase#RETRY} rows of a subscription out of the retry cycle:
   * into the {@link Phase#DEAD_LETTER} phase when {@code toDeadLetterPhase}, else straight into
   * {@code dead_letter}.
   *
   * @return how many rows were evicted (claimed rows are skipped, so possibly fewer than {@code
   *     count})
   */
  public int evictOldest(
      String subscriptionId,
      int count,
      String origin,
      String reason,
      long now,
      boolean toDeadLetterPhase) {
    return tx.execute(
        s -> {
          List<String> ids =
              jdbc.queryForList(
                  "select id from parked_delivery where subscription_id = ?"
                      + " and phase = 'RETRY' and (locked_until is null or locked_until < ?) order by created_at"
                      + " fetch first ? rows only for update skip locked",
                  String.class,
                  subscriptionId,
                  now,
                  count);
          if (ids.isEmpty()) {
            return 0;
          }
          String in = StoreDatabase.placeholders(ids.size());
          if (toDeadLetterPhase) {
            List<Object> args = new ArrayList<>(List.of(StoreDatabase.cut(reason), now, now));
            args.addAll(ids);
            jdbc.update(
                "update parked_delivery set phase = 'DEAD_LETTER', dead_letter_reason = ?, next_attempt_at = ?,"
                    + " last_attempt_at = ?, locked_by = null, lock_token = null, locked_until = null where id in ("
                    + in
                    + ")",
                args.toArray());
          } else {
            List<Object> args =
                new ArrayList<>(List.of(StoreDatabase.cut(origin), StoreDatabase.cut(reason), now));
            args.addAll(ids);
            jdbc.update(
                "insert into dead_letter ("
                    + DeadLetterStore.DEAD_COLUMNS
                    + ") select id, subscription_id, ?, event_id,"
                    + " event_source, event_type, event_json, attempts, ?, received_at, ?, shaped from parked_delivery where id in ("
                    + in
                    + ")",
                args.toArray());
            jdbc.update("delete from parked_delivery where id in (" + in + ")", ids.toArray());
          }
          return ids.size();
        });
  }

  /** Whether a subscription still exists (its parked deliveries are dropped once it is gone). */
  public boolean subscriptionExists(String subscriptionId) {
    Long n =
        jdbc.queryForObject(
            "select count(*) from subscription where id = ?", Long.class, subscriptionId);
    return n != null && n > 0;
  }

  /**
   * Deletes the parked deliveries of a deleted subscription; dead letters stay until their
   * retention ends.
   */
  public int deleteParked(String subscriptionId) {
    return jdbc.update("delete from parked_delivery where subscription_id = ?", subscriptionId);
  }

  /** Deletes a claimed row of a subscription that no longer exists. */
  public int deleteClaimed(Claim claim) {
    return delete(List.of(claim));
  }

  /** Pending deliveries of one subscription. */
  public PendingStats pending(String subscriptionId) {
    return jdbc.query(
        "select count(*) as n, sum(case when phase = 'DEAD_LETTER' then 1 else 0 end) as dl,"
            + " min(created_at) as oldest, min(next_attempt_at) as next_at from parked_delivery"
            + " where subscription_id = ?",
        rs -> {
          rs.next();
          long n = rs.getLong("n");
          if (n == 0) {
            return new PendingStats(0, 0, null, null, null, null);
          }
          Map.Entry<String, Long> last = lastError(subscriptionId);
          return new PendingStats(
              n,
              rs.getLong("dl"),
              rs.getLong("oldest"),
              rs.getLong("next_at"),
              last == null ? null : last.getKey(),
              last == null ? null : last.getValue());
        },
        subscriptionId);
  }

  private Map.Entry<String, Long> lastError(String subscriptionId) {
    List<Map.Entry<String, Long>> rows =
        jdbc.query(
            "select last_error, last_attempt_at from parked_delivery"
                + " where subscription_id = ? and last_attempt_at is not null order by last_attempt_at desc"
                + " fetch first 1 rows only",
            (rs, i) -> Map.entry(String.valueOf(rs.getString(1)), rs.getLong(2)),
            subscriptionId);
    return rows.isEmpty() ? null : rows.get(0);
  }

  /** Pending deliveries per subscription (for gauges). */
  public Map<String, Long> pendingBySubscription() {
    Map<String, Long> counts = new LinkedHashMap<>();
    jdbc.query(
        "select subscription_id, count(*) from parked_delivery group by subscription_id",
        (ResultSet rs) -> {
          counts.put(rs.getString(1), rs.getLong(2));
        });
    return counts;
  }

  // ------------------------------------------------------------------ mapping

  private static ParkedDelivery parked(ResultSet rs, int row) throws SQLException {
    return new ParkedDelivery(
        rs.getString("id"),
        rs.getString("subscription_id"),
        Phase.valueOf(rs.getString("phase")),
        rs.getString("event_id"),
        rs.getString("event_source"),
        rs.getString("event_type"),
        rs.getString("event_json"),
        rs.getInt("attempts"),
        rs.getLong("received_at"),
        rs.getLong("next_attempt_at"),
        rs.getString("last_error"),
        rs.getString("dead_letter_reason"),
        rs.getString("lock_token"),
        rs.getLong("created_at"),
        rs.getBoolean("shaped"),
        rs.getString("ordering_key"),
        rs.getObject("blocking_since", Long.class));
  }

  private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
    if (v == null) {
      ps.setNull(i, Types.BIGINT);
    } else {
      ps.setLong(i, v);
    }
  }

  private static int sum(int[][] counts) {
    int n = 0;
    for (int[] batch : counts) {
      for (int c : batch) {
        n += Math.max(0, c);
      }
    }
    return n;
  }
}
