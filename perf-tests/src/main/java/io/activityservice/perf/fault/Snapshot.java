package io.activityservice.perf.fault;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.perf.service.ServiceApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The replicas' memory and the database's tables at one moment: heap used after a full GC ({@code
 * jcmd GC.run}, then the service's {@code jvm.memory.used} for area heap), resident set size
 * ({@code /proc/<pid>/status}), and rows and bytes (with indexes and partitions) of the delivery
 * store, archive and configuration tables.
 *
 * @param heap heap after GC per replica, bytes (-1 if it could not be read)
 * @param rss RSS per replica, bytes (-1 if it could not be read)
 * @param tables per table: {rows, bytes}
 */
public record Snapshot(
    long epochMillis, List<Long> heap, List<Long> rss, Map<String, long[]> tables) {

  /** The tables the report follows: delivery store, archive, configuration and cluster. */
  public static final List<String> TABLES =
      List.of(
          "parked_delivery",
          "dead_letter",
          "archived_event",
          "config_change",
          "cluster_member",
          "audit_event");

  /**
   * Heap used after a full GC of process {@code pid}, read through the service's metrics; -1 if
   * unknown.
   */
  public static long heapAfterGc(long pid, ServiceApi api) {
    try {
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(pid),
                  "GC.run")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
    JsonNode m = api.getJson("/actuator/metrics/jvm.memory.used?tag=area:heap");
    return m == null ? -1 : (long) m.path("measurements").path(0).path("value").asDouble(-1);
  }

  /** Resident set size of process {@code pid}, bytes; -1 if unknown. */
  public static long rss(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** Rows and total bytes of {@link #TABLES} (a table that cannot be read is left out). */
  public static Map<String, long[]> tables(String jdbcUrl) {
    Map<String, long[]> out = new LinkedHashMap<>();
    try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
        Statement s = c.createStatement()) {
      for (String table : TABLES) {
        try (ResultSet r =
            s.executeQuery(
                "select (select count(*) from "
                    + table
                    + "), (select coalesce(sum("
                    + "pg_total_relation_size(relid)), 0) from pg_partition_tree('"
                    + table
                    + "'))")) {
          r.next();
          out.put(table, new long[] {r.getLong(1), r.getLong(2)});
        } catch (SQLException e) {
          // left out
        }
      }
    } catch (SQLException e) {
      // the database is not reachable: no table figures
    }
    return out;
  }

  /** Sum of the known values, bytes; -1 if none is known. */
  public static long sum(List<Long> values) {
    long total = 0;
    boolean any = false;
    for (long v : values) {
      if (v >= 0) {
        total += v;
        any = true;
      }
    }
    return any ? total : -1;
  }
}
