package io.activityservice.events.subscription;

import io.activityservice.events.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Stores subscriptions in the {@code subscription} table. */
public class SubscriptionRepository {

  private final JdbcClient jdbc;

  public SubscriptionRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public List<Subscription> findAll() {
    return jdbc.sql("select * from subscription order by created_at, id").query(this::map).list();
  }

  public Optional<Subscription> find(String id) {
    return jdbc.sql("select * from subscription where id = ?")
        .param(id)
        .query(this::map)
        .optional();
  }

  public void insert(Subscription s) {
    jdbc.sql(
            """
            insert into subscription (id, name, pattern_json, filter_expr, target, max_attempts,
              initial_backoff_ms, max_backoff_ms, max_age_ms, max_pending, dead_letter, created_at, owner)
            values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""")
        .params(
            s.id(),
            s.name(),
            Json.write(s.pattern()),
            s.filter(),
            s.target(),
            s.retry().maxAttempts(),
            s.retry().initialBackoff().toMillis(),
            s.retry().maxBackoff().toMillis(),
            s.retry().maxAge().toMillis(),
            s.retry().maxPending(),
            s.deadLetter(),
            s.createdAt(),
            s.owner())
        .update();
  }

  public boolean delete(String id) {
    return jdbc.sql("delete from subscription where id = ?").param(id).update() == 1;
  }

  private Subscription map(ResultSet rs, int row) throws SQLException {
    String pattern = rs.getString("pattern_json");
    RetryPolicy retry =
        new RetryPolicy(
            rs.getInt("max_attempts"),
            Duration.ofMillis(rs.getLong("initial_backoff_ms")),
            Duration.ofMillis(rs.getLong("max_backoff_ms")),
            Duration.ofMillis(rs.getLong("max_age_ms")),
            rs.getInt("max_pending"));
    return new Subscription(
        rs.getString("id"),
        rs.getString("name"),
        pattern == null ? null : Json.parse(pattern, "pattern"),
        rs.getString("filter_expr"),
        rs.getString("target"),
        retry,
        rs.getString("dead_letter"),
        rs.getObject("created_at", OffsetDateTime.class),
        rs.getString("owner"));
  }
}
