package io.activityservice.events.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.events.json.Json;
import io.activityservice.events.transform.Transform;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
              initial_backoff_ms, max_backoff_ms, max_age_ms, max_pending, dead_letter, created_at, owner,
              transform_json, delivery_format)
            values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""")
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
            s.owner(),
            s.transform() == null ? null : Json.write(Json.tree(s.transform())),
            s.format() == null ? null : s.format().wireName())
        .update();
  }

  public boolean delete(String id) {
    return jdbc.sql("delete from subscription where id = ?").param(id).update() == 1;
  }

  private Subscription map(ResultSet rs, int row) throws SQLException {
    String pattern = rs.getString("pattern_json");
    String format = rs.getString("delivery_format");
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
        rs.getString("owner"),
        transform(rs.getString("transform_json")),
        format == null ? null : DeliveryFormat.parse(format));
  }

  private static Transform transform(String json) {
    if (json == null) {
      return null;
    }
    JsonNode tree = Json.parse(json, "transform");
    JsonNode data = tree.get("data");
    Map<String, String> attributes = new LinkedHashMap<>();
    JsonNode a = tree.get("attributes");
    if (a != null && a.isObject()) {
      a.properties().forEach(e -> attributes.put(e.getKey(), e.getValue().asText()));
    }
    return new Transform(data == null || data.isNull() ? null : data.asText(), attributes);
  }
}
