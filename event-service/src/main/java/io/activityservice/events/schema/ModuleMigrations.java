package io.activityservice.events.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.configuration.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the migrations of several modules, each by its own Flyway with its own history table ({@link
 * ModuleSchema#historyTable()}), modules in dependency order.
 *
 * <p>A database created by the single history of before ({@code flyway_schema_history}, every
 * module's versions interleaved in one table) is taken over without running anything twice: a
 * module whose history table is still empty starts it with a baseline at the highest of its
 * versions that the single history applied, then migrates what is newer. The single history is left
 * as it was. Each module's scripts kept the version they had there, and each module names those
 * versions ({@link ModuleSchema#legacyVersions()}), so that a module born later (whose V1 is not
 * the V1 of before) is never taken for applied (docs/migrations.md).
 *
 * <p>On PostgreSQL the whole run holds an advisory lock, so that replicas starting together on a
 * database of before do not baseline the same history twice; each module's migrations are further
 * serialised by Flyway's own lock.
 */
public final class ModuleMigrations {

  private static final Logger log = LoggerFactory.getLogger(ModuleMigrations.class);
  // pg_advisory_lock key of the whole run (arbitrary, distinct from Flyway's per-table keys).
  private static final long LOCK_KEY = 0x6163746976697479L;

  private final Configuration base;
  private final List<ModuleSchema> schemas;

  /**
   * @param base the Flyway settings every module shares (data source, validation, placeholders,
   *     ...); its table names the single history of before and its locations are not used
   * @param schemas the modules' schemas, in any order; each dependency must be among them
   */
  public ModuleMigrations(Configuration base, Collection<ModuleSchema> schemas) {
    this.base = base;
    this.schemas = inDependencyOrder(schemas);
  }

  /** Flyway's defaults on a data source (tests and tools without Spring). */
  public static ModuleMigrations on(DataSource dataSource, ModuleSchema... schemas) {
    return new ModuleMigrations(Flyway.configure().dataSource(dataSource), List.of(schemas));
  }

  /** What {@link #migrate()} did for one module. */
  public record Outcome(String module, Optional<String> baselinedAt, int migrationsExecuted) {}

  /** The schemas in the order they are migrated. */
  public List<ModuleSchema> order() {
    return schemas;
  }

  /** Migrates every module, first taking over the single history of before where there is one. */
  public List<Outcome> migrate() {
    DataSource dataSource = base.getDataSource();
    String vendor = vendor(dataSource);
    if (!"postgresql".equals(vendor)) {
      return migrateAll(dataSource, vendor);
    }
    try (Connection lock = dataSource.getConnection()) {
      advisory(lock, "select pg_advisory_lock(?)");
      try {
        return migrateAll(dataSource, vendor);
      } finally {
        advisory(lock, "select pg_advisory_unlock(?)");
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not lock the database for its migrations: " + e.getMessage(), e);
    }
  }

  private List<Outcome> migrateAll(DataSource dataSource, String vendor) {
    String schema =
        base.getDefaultSchema() != null
            ? base.getDefaultSchema()
            : base.getSchemas().length > 0 ? base.getSchemas()[0] : null;
    Optional<LegacyHistory> legacy = LegacyHistory.read(dataSource, schema, base.getTable());
    List<Outcome> outcomes = new ArrayList<>();
    for (ModuleSchema module : schemas) {
      Flyway flyway =
          Flyway.configure(base.getClassLoader())
              .configuration(base)
              .table(module.historyTable())
              .locations(module.locationsFor(vendor).toArray(String[]::new))
              .load();
      Optional<String> baselined = Optional.empty();
      if (!hasHistory(flyway)) {
        // A new history: it starts after what the single history of before applied (0: nothing of
        // this module), so
        // that Flyway accepts a schema that already holds other modules' tables.
        List<MigrationVersion> versions =
            module.legacyVersions().stream().map(MigrationVersion::fromVersion).toList();
        Optional<MigrationVersion> start =
            legacy.flatMap(l -> l.baselineFor(module.module(), versions));
        Flyway.configure(base.getClassLoader())
            .configuration(flyway.getConfiguration())
            .baselineVersion(start.orElse(MigrationVersion.fromVersion("0")))
            .baselineDescription(
                start.isPresent() ? "applied under " + base.getTable() : "<< module schema >>")
            .load()
            .baseline();
        if (start.isPresent()) {
          baselined = Optional.of(start.get().getVersion());
          log.info(
              "Module schema {}: {} started at V{}, the last of its versions {} applied",
              module.module(),
              module.historyTable(),
              start.get(),
              base.getTable());
        }
      }
      int executed = flyway.migrate().migrationsExecuted;
      outcomes.add(new Outcome(module.module(), baselined, executed));
    }
    return outcomes;
  }

  private static boolean hasHistory(Flyway flyway) {
    return flyway.info().applied().length > 0;
  }

  private static void advisory(Connection c, String sql) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setLong(1, LOCK_KEY);
      s.execute();
    }
  }

  /**
   * The database's id in {@code {vendor}} locations: {@code postgresql}, {@code h2}, else its
   * product name.
   */
  static String vendor(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
      if (product.contains("postgres")) {
        return "postgresql";
      }
      return product.contains("h2") ? "h2" : product.replaceAll("[^a-z0-9]", "");
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not reach the database to migrate it: " + e.getMessage(), e);
    }
  }

  // Kahn's algorithm, keeping the given order among modules that do not depend on each other.
  private static List<ModuleSchema> inDependencyOrder(Collection<ModuleSchema> schemas) {
    Map<String, ModuleSchema> byName = new LinkedHashMap<>();
    for (ModuleSchema s : schemas) {
      if (byName.put(s.module(), s) != null) {
        throw new IllegalArgumentException("module schema " + s.module() + " is registered twice");
      }
    }
    for (ModuleSchema s : byName.values()) {
      for (String d : s.dependsOn()) {
        if (!byName.containsKey(d)) {
          throw new IllegalArgumentException(
              "module schema "
                  + s.module()
                  + " depends on "
                  + d
                  + ", which is not registered (registered: "
                  + byName.keySet()
                  + ")");
        }
      }
    }
    List<ModuleSchema> ordered = new ArrayList<>();
    Set<String> done = new LinkedHashSet<>();
    while (ordered.size() < byName.size()) {
      ModuleSchema next =
          byName.values().stream()
              .filter(s -> !done.contains(s.module()) && done.containsAll(s.dependsOn()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "module schemas depend on each other in a cycle: "
                              + byName.keySet().stream().filter(n -> !done.contains(n)).toList()));
      ordered.add(next);
      done.add(next.module());
    }
    return List.copyOf(ordered);
  }
}
