package io.activityservice.detector;

import io.activityservice.events.schema.ModuleSchema;
import java.util.List;

/**
 * The migrations of the detector's table ({@code detector}), run after event-service's
 * (docs/migrations.md).
 */
public final class DetectorSchema {

  /**
   * Scripts in {@code db/migration/detector}, with the versions they had in the single history of
   * before.
   */
  public static final ModuleSchema SCHEMA =
      new ModuleSchema(
          "detector",
          List.of("classpath:db/migration/detector"),
          List.of("events"),
          List.of("2", "5.1", "8.2", "9.5"));

  private DetectorSchema() {}
}
