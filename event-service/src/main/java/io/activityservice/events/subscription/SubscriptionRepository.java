package io.activityservice.events.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.events.json.Json;
import io.activityservice.events.transform.Transform;
import io.activityservice.events.webhook.TargetSettings;
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
              signing_scheme, connection_name, flow_json, transform_json, delivery_format,
              ordering_key, ordering_max_wait_ms)
            values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""")
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
            s.webhook() == null ? null : s.webhook().signingScheme(),
            s.webhook() == null ? null : s.webhook().connection(),
            s.webhook() == null || s.webhook().flow() == null
                ? null
                : writeFlow(s.webhook().flow()),
            s.transform() == null ? null : Json.write(Json.tree(s.transform())),
            s.format() == null ? null : s.format().wireName(),
            s.ordering() == null ? null : s.ordering().key().expression(),
            s.ordering() == null ? null : s.ordering().maxWait().toMillis())
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
        new DeliveryOptions(
            TargetSettings.orNull(
                rs.getString("signing_scheme"),
                rs.getString("connection_name"),
                readFlow(rs.getString("flow_json"))),
            transform(rs.getString("transform_json")),
            format == null ? null : DeliveryFormat.parse(format),
            ordering(
                rs.getString("ordering_key"), rs.getObject("ordering_max_wait_ms", Long.class))));
  }

  private static Ordering ordering(String key, Long maxWaitMillis) {
    return key == null
        ? null
        : Ordering.of(key, Duration.ofMillis(maxWaitMillis == null ? 0 : maxWaitMillis), null);
  }

  private static String writeFlow(TargetSettings.Flow f) {
    com.fasterxml.jackson.databind.node.ObjectNode n = Json.MAPPER.createObjectNode();
    if (f.ratePerSecond() != null) {
      n.put("ratePerSecond", f.ratePerSecond());
    }
    if (f.burst() != null) {
      n.put("burst", f.burst());
    }
    if (f.timeout() != null) {
      n.put("timeoutMs", f.timeout().toMillis());
    }
    if (f.breakerFailures() != null) {
      n.put("breakerFailures", f.breakerFailures());
      n.put("breakerOpenForMs", f.breakerOpenFor().toMillis());
    }
    return Json.write(n);
  }

  private static TargetSettings.Flow readFlow(String json) {
    if (json == null) {
      return null;
    }
    com.fasterxml.jackson.databind.JsonNode n = Json.parse(json, "flow");
    return new TargetSettings.Flow(
        n.hasNonNull("ratePerSecond") ? n.get("ratePerSecond").asDouble() : null,
        n.hasNonNull("burst") ? n.get("burst").asInt() : null,
        n.hasNonNull("timeoutMs") ? Duration.ofMillis(n.get("timeoutMs").asLong()) : null,
        n.hasNonNull("breakerFailures") ? n.get("breakerFailures").asInt() : null,
        n.hasNonNull("breakerOpenForMs")
            ? Duration.ofMillis(n.get("breakerOpenForMs").asLong())
            : null);
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
