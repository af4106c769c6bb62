package io.activityservice.events.schema;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The database migrations one module owns, run by their own Flyway with their own history table
 * ({@code <module>_schema_history}), so that the versions of two modules can never collide.
 *
 * <p>Each module declares its schema once (e.g. {@link EventsSchema#SCHEMA}) and contributes it to
 * the application (a {@code ModuleSchema} bean); {@link ModuleMigrations} runs them in dependency
 * order. How to add a migration: docs/migrations.md.
 *
 * @param module short lower-case name ({@code events}, {@code detector}, ...); its history table is
 *     {@code <module>_schema_history}
 * @param locations Flyway locations of the module's scripts; {@code {vendor}} stands for the
 *     database in use ({@code h2}, {@code postgresql}), for the few scripts that differ per
 *     database
 * @param dependsOn modules whose migrations must run before this module's (their tables exist
 *     first)
 * @param legacyVersions the versions this module's scripts had in the single {@code
 *     flyway_schema_history} of before (frozen: empty for a module, or a script, born after it); a
 *     database that history migrated starts the module's history at the last of them it applied
 */
public record ModuleSchema(
    String module, List<String> locations, List<String> dependsOn, List<String> legacyVersions) {

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,39}");

  /** Checks the name and copies the lists. */
  public ModuleSchema {
    if (module == null || !NAME.matcher(module).matches()) {
      throw new IllegalArgumentException(
          "module schema name must match "
              + NAME
              + " (it prefixes the history"
              + " table): "
              + module);
    }
    if (locations == null || locations.isEmpty()) {
      throw new IllegalArgumentException(
          "module schema " + module + " needs at least one location");
    }
    locations = List.copyOf(locations);
    dependsOn = dependsOn == null ? List.of() : List.copyOf(dependsOn);
    legacyVersions = legacyVersions == null ? List.of() : List.copyOf(legacyVersions);
    if (dependsOn.contains(module)) {
      throw new IllegalArgumentException("module schema " + module + " depends on itself");
    }
  }

  /** A module born after the single history: nothing of it can have been applied there. */
  public ModuleSchema(String module, List<String> locations, List<String> dependsOn) {
    this(module, locations, dependsOn, List.of());
  }

  /** The table in which Flyway records this module's applied migrations. */
  public String historyTable() {
    return module + "_schema_history";
  }

  /**
   * The locations with {@code {vendor}} replaced by the database's id ({@code h2}, {@code
   * postgresql}).
   */
  List<String> locationsFor(String vendor) {
    return locations.stream().map(l -> l.replace("{vendor}", vendor)).toList();
  }
}
