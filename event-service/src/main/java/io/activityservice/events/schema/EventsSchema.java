package io.activityservice.events.schema;

import java.util.List;

/**
 * The migrations of event-service's own tables (registry, subscriptions, channels, delivery,
 * cluster, archive).
 */
public final class EventsSchema {

  /**
   * Portable scripts in {@code db/migration/events}; the archived-event table, whose layout
   * differs, in {@code db/vendor/events/{vendor}}. Every other module's tables come after these. V6
   * (the subscription owner) was part of V6__security.sql in the single history of before.
   */
  public static final ModuleSchema SCHEMA =
      new ModuleSchema(
          "events",
          List.of("classpath:db/migration/events", "classpath:db/vendor/events/{vendor}"),
          List.of(),
          List.of("1", "4", "5", "6", "7", "7.1", "9"));

  private EventsSchema() {}
}
