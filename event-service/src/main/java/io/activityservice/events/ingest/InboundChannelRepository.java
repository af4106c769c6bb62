package io.activityservice.events.ingest;

import com.fasterxml.jackson.core.type.TypeReference;
import io.activityservice.events.json.Json;
import java.net.URI;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Stores inbound channels added through the API in the {@code inbound_channel} table. */
public class InboundChannelRepository {

  private static final TypeReference<Map<String, String>> PROPS = new TypeReference<>() {};

  private final JdbcClient jdbc;

  public InboundChannelRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public List<InboundChannelDefinition> findAll() {
    return jdbc.sql("select * from inbound_channel order by created_at, uri")
        .query(this::map)
        .list();
  }

  public void insert(InboundChannelDefinition c) {
    jdbc.sql(
            """
            insert into inbound_channel (uri, default_type, default_source, properties_json, created_at)
            values (?, ?, ?, ?, ?)""")
        .params(
            c.uri(),
            c.defaultType(),
            c.defaultSource() == null ? null : c.defaultSource().toString(),
            Json.write(Json.tree(c.properties())),
            c.createdAt())
        .update();
  }

  public boolean delete(String uri) {
    return jdbc.sql("delete from inbound_channel where uri = ?").param(uri).update() == 1;
  }

  private InboundChannelDefinition map(ResultSet rs, int row) throws SQLException {
    String source = rs.getString("default_source");
    String props = rs.getString("properties_json");
    return new InboundChannelDefinition(
        rs.getString("uri"),
        rs.getString("default_type"),
        source == null ? null : URI.create(source),
        props == null ? Map.of() : Json.MAPPER.convertValue(Json.parse(props, "properties"), PROPS),
        "api",
        rs.getObject("created_at", OffsetDateTime.class));
  }
}
