package io.activityservice.rules.store;

import io.activityservice.events.definition.Definition;
import io.activityservice.events.scope.TypeScope;
import java.time.OffsetDateTime;

/**
 * A stored rule set.
 *
 * @param name unique name, used in {@code /api/v1/rules/{name}}
 * @param drl the user's DRL
 * @param version 1 on creation, +1 on every update
 * @param createdAt when it was created
 * @param updatedAt when it was last changed
 * @param partitionBy with several replicas, the key its input events are partitioned by (e.g.
 *     {@code data.meter}): each key is processed by one replica; {@code null}: one replica
 *     processes all its events
 * @param authorScope the event types its author may use (what it receives, publishes and sends is
 *     checked against it); {@code null}: unscoped (an admin, or a rule set stored before scopes
 *     were stored)
 */
public record RuleDefinition(
    String name,
    String drl,
    long version,
    OffsetDateTime createdAt,
    OffsetDateTime updatedAt,
    String partitionBy,
    TypeScope authorScope)
    implements Definition {

  public RuleDefinition {
    partitionBy = partitionBy == null || partitionBy.isBlank() ? null : partitionBy.trim();
  }

  /** A rule set of an unscoped author. */
  public RuleDefinition(
      String name,
      String drl,
      long version,
      OffsetDateTime createdAt,
      OffsetDateTime updatedAt,
      String partitionBy) {
    this(name, drl, version, createdAt, updatedAt, partitionBy, null);
  }

  /** A rule set that is not partitioned, of an unscoped author. */
  public RuleDefinition(
      String name, String drl, long version, OffsetDateTime createdAt, OffsetDateTime updatedAt) {
    this(name, drl, version, createdAt, updatedAt, null, null);
  }
}
