package io.activityservice.events.archive;

import com.fasterxml.jackson.core.type.TypeReference;
import io.activityservice.events.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Stores replays in the {@code replay} table. A running replay is claimed by one replica at a time
 * ({@code FOR UPDATE SKIP LOCKED} plus a lease it renews after every page); a replica that dies
 * leaves it to another once the lease ends, which resumes at the last recorded position.
 */
class ReplayRepository {

  private static final TypeReference<Map<String, List<String>>> DESTINATIONS =
      new TypeReference<>() {};

  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;

  public ReplayRepository(DataSource dataSource) {
    this.jdbc = new JdbcTemplate(dataSource);
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
  }

  /** Inserts a new replay; false if the name is taken. */
  public boolean insert(Replay r, long total) {
    if (find(r.name()).isPresent()) {
      return false;
    }
    Map<String, Object> d = new java.util.LinkedHashMap<>();
    d.put("subscriptions", r.destinations().subscriptions());
    d.put("detectors", r.destinations().detectors());
    d.put("rules", r.destinations().rules());
    jdbc.update(
        "insert into replay (name, archive_name, from_ms, to_ms, destinations_json, state, total, replayed,"
            + " created_at) values (?, ?, ?, ?, ?, 'RUNNING', ?, 0, ?)",
        r.name(),
        r.archive(),
        r.from(),
        r.to(),
        Json.write(Json.tree(d)),
        total,
        r.createdAt());
    return true;
  }

  public Optional<Replay> find(String name) {
    return jdbc.query("select * from replay where name = ?", ReplayRepository::map, name).stream()
        .findFirst();
  }

  public List<Replay> findAll() {
    return jdbc.query("select * from replay order by created_at desc, name", ReplayRepository::map);
  }

  /**
   * Claims one running replay whose lease ended (or that was never claimed) for {@code replica}.
   */
  public Optional<Replay> claim(String replica, long now, long leaseUntil) {
    return tx.execute(
        s -> {
          List<String> names =
              jdbc.queryForList(
                  "select name from replay where state = 'RUNNING' and (lease_until is null"
                      + " or lease_until < ?) order by created_at fetch first 1 rows only for update skip locked",
                  String.class,
                  now);
          if (names.isEmpty()) {
            return Optional.<Replay>empty();
          }
          jdbc.update(
              "update replay set claimed_by = ?, lease_until = ?, started_at = coalesce(started_at, ?)"
                  + " where name = ?",
              replica,
              leaseUntil,
              now,
              names.get(0));
          return find(names.get(0));
        });
  }

  /**
   * Records progress and renews the lease; false if the replay is no longer this replica's or no
   * longer running.
   */
  public boolean progress(
      String name,
      String replica,
      long replayed,
      ArchivedEvent.Position position,
      long leaseUntil) {
    return jdbc.update(
            "update replay set replayed = ?, last_event_time = ?, last_archived_at = ?, last_event_row = ?,"
                + " lease_until = ? where name = ? and claimed_by = ? and state = 'RUNNING'",
            replayed,
            position == null ? null : position.eventTime(),
            position == null ? null : position.archivedAt(),
            position == null ? null : position.rowId(),
            leaseUntil,
            name,
            replica)
        == 1;
  }

  /** Ends a replay this replica runs. */
  public void finish(String name, String replica, Replay.State state, String error, long now) {
    jdbc.update(
        "update replay set state = ?, error = ?, finished_at = ?, lease_until = null where name = ?"
            + " and claimed_by = ? and state = 'RUNNING'",
        state.name(),
        error,
        now,
        name,
        replica);
  }

  /** Cancels a running replay; false if it was not running. */
  public boolean cancel(String name, long now) {
    return jdbc.update(
            "update replay set state = 'CANCELLED', finished_at = ? where name = ? and state = 'RUNNING'",
            now,
            name)
        == 1;
  }

  private static Replay map(ResultSet rs, int row) throws SQLException {
    Map<String, List<String>> d =
        rs.getString("destinations_json") == null
            ? Map.of()
            : Json.MAPPER.convertValue(
                Json.parse(rs.getString("destinations_json"), "destinations"), DESTINATIONS);
    long lastTime = rs.getLong("last_event_time");
    ArchivedEvent.Position position =
        rs.wasNull()
            ? null
            : new ArchivedEvent.Position(
                lastTime, rs.getLong("last_archived_at"), rs.getString("last_event_row"));
    long started = rs.getLong("started_at");
    Long startedAt = rs.wasNull() ? null : started;
    long finished = rs.getLong("finished_at");
    Long finishedAt = rs.wasNull() ? null : finished;
    return new Replay(
        rs.getString("name"),
        rs.getString("archive_name"),
        rs.getLong("from_ms"),
        rs.getLong("to_ms"),
        new Replay.Destinations(d.get("subscriptions"), d.get("detectors"), d.get("rules")),
        Replay.State.valueOf(rs.getString("state")),
        rs.getLong("total"),
        rs.getLong("replayed"),
        position,
        rs.getString("error"),
        rs.getLong("created_at"),
        startedAt,
        finishedAt);
  }
}
