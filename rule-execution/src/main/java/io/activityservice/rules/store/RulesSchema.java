package io.activityservice.rules.store;

import io.activityservice.events.schema.ModuleSchema;
import java.util.List;

/**
 * The migrations of the rules' table ({@code rule}), run after event-service's
 * (docs/migrations.md).
 */
public final class RulesSchema {

  /**
   * Scripts in {@code db/migration/rules}, with the versions they had in the single history of
   * before.
   */
  public static final ModuleSchema SCHEMA =
      new ModuleSchema(
          "rules",
          List.of("classpath:db/migration/rules"),
          List.of("events"),
          List.of("3", "5.2", "8.1"));

  private RulesSchema() {}
}
