package io.activityservice.detector.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.detector.ClockMode;
import io.activityservice.detector.DetectorDefinition;
import io.activityservice.events.definition.DefinitionStore;
import io.activityservice.events.json.Json;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Stores detectors in table {@code detector} (migration {@code V2__detectors.sql}; the author's
 * scope since {@code V8_2__detector_author_scope.sql}, a JSON array of patterns, NULL for unscoped;
 * the compiled form the creating replica stored for the others since {@code
 * V9_5__detector_compiled_form.sql}, NULL for none).
 */
public class DetectorRepository implements DefinitionStore<DetectorDefinition> {

  private final JdbcClient jdbc;

  public DetectorRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Inserts; false if a detector of that name exists. */
  public boolean insert(DetectorDefinition d) {
    return insert(d, null);
  }

  /**
   * Inserts with its compiled form ({@link
   * io.activityservice.detector.DetectorEngine#compiledForm}, null for none); false if a detector
   * of that name exists.
   */
  @Override
  public boolean insert(DetectorDefinition d, String compiledForm) {
    try {
      jdbc.sql(
              "insert into detector (name, inputs_json, epl, emits, clock, created_at, partition_by, author_scope,"
                  + " compiled_form) values (:name, :inputs, :epl, :emits, :clock, :createdAt, :partitionBy,"
                  + " :authorScope, :compiledForm)")
          .param("name", d.name())
          .param("inputs", Json.write(Json.tree(d.inputs())))
          .param("epl", d.epl())
          .param("emits", d.emits())
          .param("clock", d.clock().text())
          .param("createdAt", d.createdAt())
          .param("partitionBy", d.partitionBy())
          .param("authorScope", DefinitionStore.writeScope(d.authorScope()))
          .param("compiledForm", compiledForm)
          .update();
      return true;
    } catch (DuplicateKeyException e) {
      return false;
    }
  }

  @Override
  public boolean delete(String name) {
    return jdbc.sql("delete from detector where name = :name").param("name", name).update() > 0;
  }

  @Override
  public Optional<DetectorDefinition> find(String name) {
    return jdbc.sql("select * from detector where name = :name")
        .param("name", name)
        .query((rs, i) -> map(rs))
        .optional();
  }

  /** A detector and the compiled form its creating replica stored (null if none), in one read. */
  @Override
  public Optional<Stored<DetectorDefinition>> findStored(String name) {
    return jdbc.sql("select * from detector where name = :name")
        .param("name", name)
        .query((rs, i) -> new Stored<>(map(rs), rs.getString("compiled_form")))
        .optional();
  }

  @Override
  public List<DetectorDefinition> findAll() {
    return jdbc.sql("select * from detector order by name").query((rs, i) -> map(rs)).list();
  }

  private static DetectorDefinition map(java.sql.ResultSet rs) throws java.sql.SQLException {
    JsonNode inputs = Json.parse(rs.getString("inputs_json"), "inputs");
    Map<String, String> aliases = new LinkedHashMap<>();
    inputs.properties().forEach(e -> aliases.put(e.getKey(), e.getValue().asText()));
    return new DetectorDefinition(
        rs.getString("name"),
        aliases,
        rs.getString("epl"),
        rs.getString("emits"),
        ClockMode.parse(rs.getString("clock")),
        rs.getObject("created_at", OffsetDateTime.class),
        rs.getString("partition_by"),
        DefinitionStore.readScope(rs.getString("author_scope")));
  }
}
