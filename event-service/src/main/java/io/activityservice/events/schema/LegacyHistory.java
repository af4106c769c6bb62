package io.activityservice.events.schema;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.flywaydb.core.api.MigrationVersion;

/**
 * The single Flyway history of before ({@code flyway_schema_history}, all modules' versions
 * interleaved), read once so that each module's new history can be baselined at the versions the
 * database already has. Never written.
 */
final class LegacyHistory {

  private final String table;
  private final Set<MigrationVersion> applied;
  private final MigrationVersion baseline;
  private final List<String> failed;

  private LegacyHistory(
      String table, Set<MigrationVersion> applied, MigrationVersion baseline, List<String> failed) {
    this.table = table;
    this.applied = applied;
    this.baseline = baseline;
    this.failed = failed;
  }

  /**
   * The legacy history in the given schema (null: the connection's), or empty when the table does
   * not exist.
   */
  static Optional<LegacyHistory> read(DataSource dataSource, String schema, String table) {
    try (Connection c = dataSource.getConnection()) {
      String inSchema = schema != null ? schema : c.getSchema();
      String qualified = find(c.getMetaData(), inSchema, table);
      if (qualified == null) {
        return Optional.empty();
      }
      Set<MigrationVersion> applied = new TreeSet<>();
      MigrationVersion baseline = null;
      List<String> failed = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "select \"version\", \"description\", \"type\", \"success\" from "
                      + qualified
                      + " where \"version\" is not null")) {
        while (rs.next()) {
          MigrationVersion version = MigrationVersion.fromVersion(rs.getString(1));
          String type = rs.getString(3);
          if (!rs.getBoolean(4)) {
            failed.add("V" + version + " " + rs.getString(2));
          } else if ("BASELINE".equals(type)) {
            baseline = baseline == null || version.isNewerThan(baseline) ? version : baseline;
          } else if (!"DELETE".equals(type)) {
            applied.add(version);
          }
        }
      }
      return Optional.of(new LegacyHistory(table, applied, baseline, failed));
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not read the Flyway history " + table + ": " + e.getMessage(), e);
    }
  }

  // The table as Flyway created it (quoted, so its exact case), or null.
  private static String find(DatabaseMetaData meta, String schema, String table)
      throws SQLException {
    try (ResultSet rs = meta.getTables(null, schema, table, null)) {
      if (rs.next()) {
        return quote(rs.getString("TABLE_SCHEM")) + "." + quote(rs.getString("TABLE_NAME"));
      }
    }
    return null;
  }

  private static String quote(String identifier) {
    return identifier == null ? null : "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  /**
   * The version at which a module's new history starts on this database: the highest of the
   * module's versions the legacy history applied, or empty when it applied none of them (the
   * module's scripts all run).
   *
   * @param module the module, for messages
   * @param versions the versions the module's scripts had in the legacy history
   * @throws IllegalStateException when the legacy history has a failed migration, or applied some
   *     of the module's versions but not an earlier one (out of order: the module's state is not a
   *     prefix of its scripts)
   */
  Optional<MigrationVersion> baselineFor(String module, List<MigrationVersion> versions) {
    if (!failed.isEmpty()) {
      throw new IllegalStateException(
          "the Flyway history "
              + table
              + " records failed migrations "
              + failed
              + "; repair them with the release that created them (flyway repair) before upgrading, see"
              + " docs/migrations.md");
    }
    List<MigrationVersion> done = versions.stream().filter(this::isApplied).sorted().toList();
    if (done.isEmpty()) {
      return Optional.empty();
    }
    MigrationVersion last = done.get(done.size() - 1);
    List<String> skipped =
        versions.stream()
            .filter(v -> !isApplied(v) && last.isNewerThan(v))
            .sorted()
            .map(v -> "V" + v)
            .collect(Collectors.toList());
    if (!skipped.isEmpty()) {
      throw new IllegalStateException(
          "module schema "
              + module
              + ": "
              + table
              + " applied V"
              + last
              + " but not "
              + skipped
              + "; the module's history cannot start after it. Apply the missing scripts"
              + " with the release that created the database first, see docs/migrations.md");
    }
    return Optional.of(last);
  }

  private boolean isApplied(MigrationVersion version) {
    return applied.contains(version) || (baseline != null && !version.isNewerThan(baseline));
  }
}
