package io.activityservice.app.security;

import io.activityservice.events.json.Json;
import io.activityservice.events.scope.TypeScope;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Stores API keys in {@code api_key}: hashes of their secrets, never the secrets. */
class ApiKeyRepository {

  private final JdbcClient jdbc;

  ApiKeyRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public void insert(StoredKey k) {
    jdbc.sql(
            """
            insert into api_key (id, name, roles, event_types, secret_sha256, created_at, created_by)
            values (?, ?, ?, ?, ?, ?, ?)""")
        .params(
            k.id(),
            k.name(),
            k.roles().stream().map(Role::text).collect(Collectors.joining(",")),
            Json.write(Json.MAPPER.valueToTree(k.eventTypes().patterns())),
            HexFormat.of().formatHex(k.secretSha256()),
            k.createdAt(),
            k.createdBy())
        .update();
  }

  public Optional<StoredKey> find(String id) {
    return jdbc.sql("select * from api_key where id = ?").param(id).query(this::map).optional();
  }

  /** Keys not revoked, oldest first. */
  public List<StoredKey> findActive() {
    return jdbc.sql("select * from api_key where revoked_at is null order by created_at, id")
        .query(this::map)
        .list();
  }

  /** Whether a key with role admin exists and is not revoked. */
  public boolean hasActiveAdmin() {
    return findActive().stream().anyMatch(k -> k.roles().contains(Role.ADMIN));
  }

  /** Marks a key revoked; false if it does not exist or was revoked already. */
  public boolean revoke(String id, long at) {
    return jdbc.sql("update api_key set revoked_at = ? where id = ? and revoked_at is null")
            .params(at, id)
            .update()
        == 1;
  }

  /** Records a use (never moves the time back). */
  public void touch(String id, long at) {
    jdbc.sql(
            "update api_key set last_used_at = ? where id = ? and (last_used_at is null or last_used_at < ?)")
        .params(at, id, at)
        .update();
  }

  private StoredKey map(ResultSet rs, int row) throws SQLException {
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (String r : rs.getString("roles").split(",")) {
      Role.find(r).ifPresent(roles::add);
    }
    List<String> types = new ArrayList<>();
    String json = rs.getString("event_types");
    if (json != null) {
      Json.parse(json, "event_types").forEach(n -> types.add(n.asText()));
    }
    long lastUsed = rs.getLong("last_used_at");
    Long lastUsedAt = rs.wasNull() ? null : lastUsed;
    long revoked = rs.getLong("revoked_at");
    Long revokedAt = rs.wasNull() ? null : revoked;
    return new StoredKey(
        rs.getString("id"),
        rs.getString("name"),
        roles,
        TypeScope.lenient(types),
        HexFormat.of().parseHex(rs.getString("secret_sha256")),
        rs.getLong("created_at"),
        rs.getString("created_by"),
        lastUsedAt,
        revokedAt);
  }
}
