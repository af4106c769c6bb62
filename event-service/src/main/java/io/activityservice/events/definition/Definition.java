package io.activityservice.events.definition;

import io.activityservice.events.scope.TypeScope;

/** A stored user definition that runs inside the service: a detector, a rule set. Immutable. */
public interface Definition {

  /** Unique name within its kind. */
  String name();

  /** 1 on creation, +1 on every replacement; definitions that cannot be replaced stay at 1. */
  default long version() {
    return 1;
  }

  /**
   * With several replicas, the key its input events are partitioned by (e.g. {@code data.meter}):
   * each key is processed by one replica; {@code null}: one replica processes all its events.
   */
  String partitionBy();

  /**
   * The event types its author may use; {@code null}: unscoped (an admin, or a definition stored
   * before scopes were stored).
   */
  TypeScope authorScope();

  /** The scope it is checked against: {@link TypeScope#ALL} when unscoped. */
  default TypeScope effectiveScope() {
    return authorScope() == null ? TypeScope.ALL : authorScope();
  }

  /**
   * What is stored for an author's scope: null for unscoped authors (as for definitions stored
   * before scopes).
   */
  static TypeScope storedScope(TypeScope authorScope) {
    return authorScope == null || authorScope.isAll() ? null : authorScope;
  }
}
