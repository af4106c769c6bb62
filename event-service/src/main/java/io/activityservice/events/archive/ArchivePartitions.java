package io.activityservice.events.archive;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * How archived events are stored and dropped. On PostgreSQL each archive is a LIST partition of
 * {@code archived_event}, itself partitioned by archive time in days (RANGE): retention drops whole
 * daily partitions. On H2 (the embedded default) it is one table, and retention deletes rows.
 */
public abstract class ArchivePartitions {

  /** The strategy for the database behind {@code dataSource}. */
  public static ArchivePartitions forDatabase(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      String product = c.getMetaData().getDatabaseProductName();
      return "PostgreSQL".equalsIgnoreCase(product)
          ? new Postgres(dataSource)
          : new Rows(dataSource);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot reach the database: " + e.getMessage(), e);
    }
  }

  protected final JdbcTemplate jdbc;

  ArchivePartitions(DataSource dataSource) {
    this.jdbc = new JdbcTemplate(dataSource);
  }

  /** Prepares storage for a new archive. */
  public abstract void created(long archiveId);

  /**
   * Makes sure events archived at {@code archivedAt} (epoch ms) have somewhere to go. Idempotent,
   * cheap when done.
   */
  public abstract void ensure(long archiveId, long archivedAt);

  /**
   * Drops the events of an archive that were archived before {@code cutoff} (whole days on
   * PostgreSQL).
   */
  public abstract int dropOlderThan(long archiveId, long cutoff);

  /** Drops everything of a deleted archive. */
  public abstract void deleted(long archiveId);

  /** Partitions of an archive, for tests and the archive view; empty where there are none. */
  public abstract List<String> partitions(long archiveId);

  static long dayStart(long millis) {
    return LocalDate.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC)
        .atStartOfDay(ZoneOffset.UTC)
        .toInstant()
        .toEpochMilli();
  }

  /** PostgreSQL: partitions per archive and day. */
  static final class Postgres extends ArchivePartitions {
    private static final Logger log = LoggerFactory.getLogger(Postgres.class);
    private static final DateTimeFormatter DAY =
        DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);
    private final Set<String> ensured = ConcurrentHashMap.newKeySet();

    Postgres(DataSource dataSource) {
      super(dataSource);
    }

    private static String archiveTable(long id) {
      return "archived_event_a" + id;
    }

    private static String dayTable(long id, long dayStart) {
      return archiveTable(id) + "_d" + DAY.format(Instant.ofEpochMilli(dayStart));
    }

    @Override
    public void created(long archiveId) {
      ddl(
          "create table if not exists "
              + archiveTable(archiveId)
              + " partition of archived_event for values in ("
              + archiveId
              + ") partition by range (archived_at)");
    }

    @Override
    public void ensure(long archiveId, long archivedAt) {
      long start = dayStart(archivedAt);
      String table = dayTable(archiveId, start);
      if (ensured.contains(table)) {
        return;
      }
      created(archiveId);
      ddl(
          "create table if not exists "
              + table
              + " partition of "
              + archiveTable(archiveId)
              + " for values from ("
              + start
              + ") to ("
              + (start + 86_400_000L)
              + ")");
      ensured.add(table);
    }

    @Override
    public int dropOlderThan(long archiveId, long cutoff) {
      int dropped = 0;
      for (String table : partitions(archiveId)) {
        long start;
        try {
          start =
              LocalDate.parse(
                      table.substring(table.lastIndexOf("_d") + 2),
                      DateTimeFormatter.BASIC_ISO_DATE)
                  .atStartOfDay(ZoneOffset.UTC)
                  .toInstant()
                  .toEpochMilli();
        } catch (RuntimeException e) {
          continue;
        }
        if (start + 86_400_000L <= cutoff) {
          ddl("drop table if exists " + table);
          ensured.remove(table);
          dropped++;
          log.info("archive {}: dropped partition {} (retention)", archiveId, table);
        }
      }
      return dropped;
    }

    @Override
    public void deleted(long archiveId) {
      ddl("drop table if exists " + archiveTable(archiveId));
      ensured.removeIf(t -> t.startsWith(archiveTable(archiveId) + "_"));
    }

    @Override
    public List<String> partitions(long archiveId) {
      return jdbc.queryForList(
          "select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid"
              + " join pg_class p on p.oid = i.inhparent where p.relname = ? order by c.relname",
          String.class,
          archiveTable(archiveId));
    }

    private void ddl(String sql) {
      try {
        jdbc.execute(sql);
      } catch (RuntimeException e) {
        // Another replica created (or dropped) it at the same moment: "if (not) exists" races, the
        // result stands.
        String m = String.valueOf(e.getMessage());
        if (!m.contains("already exists") && !m.contains("does not exist")) {
          throw e;
        }
      }
    }
  }

  /** H2: one table, rows deleted by retention. */
  static final class Rows extends ArchivePartitions {
    Rows(DataSource dataSource) {
      super(dataSource);
    }

    @Override
    public void created(long archiveId) {}

    @Override
    public void ensure(long archiveId, long archivedAt) {}

    @Override
    public int dropOlderThan(long archiveId, long cutoff) {
      return jdbc.update(
          "delete from archived_event where archive_id = ? and archived_at < ?", archiveId, cutoff);
    }

    @Override
    public void deleted(long archiveId) {
      jdbc.update("delete from archived_event where archive_id = ?", archiveId);
    }

    @Override
    public List<String> partitions(long archiveId) {
      return List.of();
    }
  }
}
