package io.activityservice.app.security;

import io.activityservice.events.schema.ModuleSchema;
import java.util.List;

/**
 * The migrations of the security code's tables ({@code api_key}, {@code audit_event}), run after
 * event-service's (docs/migrations.md).
 */
public final class SecuritySchema {

  /**
   * Scripts in {@code db/migration/security}; V6 is the version they had in the single history of
   * before.
   */
  public static final ModuleSchema SCHEMA =
      new ModuleSchema(
          "security", List.of("classpath:db/migration/security"), List.of("events"), List.of("6"));

  private SecuritySchema() {}
}
