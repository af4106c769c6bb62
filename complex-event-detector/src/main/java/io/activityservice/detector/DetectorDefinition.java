package io.activityservice.detector;

import io.activityservice.events.cluster.PartitionKey;
import io.activityservice.events.definition.Definition;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.events.scope.TypeScope;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A detector: an EPL statement over aliased input event types whose output rows become events of
 * type {@code emits}.
 *
 * @param name unique name, also the source of derived events ({@code /detectors/<name>})
 * @param inputs alias (the EPL stream name) to CloudEvents type, e.g. {@code R ->
 *     com.example.meter.reading}
 * @param epl the Esper EPL: one select statement, checked by the sandbox (README); its rows are
 *     emitted
 * @param emits CloudEvents type of the derived events
 * @param clock processing time or event time
 * @param createdAt when it was created
 * @param partitionBy with several replicas, the key its input events are partitioned by (e.g.
 *     {@code data.meter}): each key is processed by one replica; {@code null}: one replica
 *     processes all its events
 * @param authorScope the event types its author may use: its inputs and {@code emits} must lie in
 *     it, and every derived event is checked against it; {@code null}: unscoped (an admin, or a
 *     detector stored before scopes were stored)
 */
public record DetectorDefinition(
    String name,
    Map<String, String> inputs,
    String epl,
    String emits,
    ClockMode clock,
    OffsetDateTime createdAt,
    String partitionBy,
    TypeScope authorScope)
    implements Definition {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
  private static final Pattern ALIAS = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
  private static final Pattern TYPE = Pattern.compile("[^\\s\\p{Cntrl}]{1,255}");
  private static final int MAX_EPL = 20_000;

  public DetectorDefinition {
    inputs =
        inputs == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
    clock = clock == null ? ClockMode.PROCESSING_TIME : clock;
    partitionBy = partitionBy == null || partitionBy.isBlank() ? null : partitionBy.trim();
  }

  /** A detector of an unscoped author. */
  public DetectorDefinition(
      String name,
      Map<String, String> inputs,
      String epl,
      String emits,
      ClockMode clock,
      OffsetDateTime createdAt,
      String partitionBy) {
    this(name, inputs, epl, emits, clock, createdAt, partitionBy, null);
  }

  /** A detector that is not partitioned, of an unscoped author. */
  public DetectorDefinition(
      String name,
      Map<String, String> inputs,
      String epl,
      String emits,
      ClockMode clock,
      OffsetDateTime createdAt) {
    this(name, inputs, epl, emits, clock, createdAt, null, null);
  }

  /**
   * Checks the fields a user supplied.
   *
   * @throws InvalidInputException naming every offending field
   */
  public DetectorDefinition validate() {
    List<FieldError> errors = new ArrayList<>();
    if (name == null || !NAME.matcher(name).matches()) {
      errors.add(
          new FieldError(
              "name", "is required: 1-100 letters, digits, '.', '_' or '-', e.g. overload"));
    }
    if (inputs.isEmpty()) {
      errors.add(
          new FieldError(
              "inputs",
              "is required: an object mapping EPL stream aliases to event types, "
                  + "e.g. {\"R\": \"com.example.meter.reading\"}"));
    }
    inputs.forEach(
        (alias, type) -> {
          if (!ALIAS.matcher(alias).matches()) {
            errors.add(
                new FieldError(
                    "inputs." + alias,
                    "alias must be an EPL identifier (letter or '_', then letters, "
                        + "digits, '_'), e.g. R"));
          }
          if (type == null || !TYPE.matcher(type).matches()) {
            errors.add(
                new FieldError(
                    "inputs." + alias,
                    "must name an event type (1-255 characters without spaces)"));
          }
        });
    if (epl == null || epl.isBlank()) {
      errors.add(
          new FieldError("epl", "is required: an Esper EPL statement, e.g. select * from R"));
    } else if (epl.length() > MAX_EPL) {
      errors.add(new FieldError("epl", "is longer than " + MAX_EPL + " characters"));
    }
    if (emits == null || !TYPE.matcher(emits).matches()) {
      errors.add(
          new FieldError(
              "emits",
              "is required: the event type of derived events, e.g. com.example.meter.overload"));
    }
    try {
      PartitionKey.parse(partitionBy);
    } catch (InvalidInputException e) {
      errors.addAll(e.errors());
    }
    if (!errors.isEmpty()) {
      throw new InvalidInputException(errors);
    }
    return this;
  }

  /** The CloudEvents source of this detector's derived events. */
  public String source() {
    return "/detectors/" + name;
  }
}
