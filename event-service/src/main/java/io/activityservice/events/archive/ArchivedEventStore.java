package io.activityservice.events.archive;

import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Reads and writes {@code archived_event}: batched inserts, and pages in event-time order with
 * keyset positions (event time, archive time, row id), so paging and replays never skip or repeat
 * an event.
 */
public class ArchivedEventStore {

  private static final String COLUMNS =
      "archive_id, row_id, archived_at, event_time, event_id, event_source,"
          + " event_type, event_json";

  /** Optional filters of a look-back query. */
  public record Filter(String type, String source, Long from, Long to) {}

  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;

  public ArchivedEventStore(DataSource dataSource) {
    this.jdbc = new JdbcTemplate(dataSource);
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
  }

  /** Inserts a batch in one transaction. */
  public void insert(List<ArchivedEvent> events) {
    tx.executeWithoutResult(
        s ->
            jdbc.batchUpdate(
                "insert into archived_event (" + COLUMNS + ") values (?, ?, ?, ?, ?, ?, ?, ?)",
                events,
                events.size(),
                (ps, e) -> {
                  ps.setLong(1, e.archiveId());
                  ps.setString(2, e.rowId());
                  ps.setLong(3, e.archivedAt());
                  ps.setLong(4, e.eventTime());
                  ps.setString(5, e.id());
                  ps.setString(6, e.source());
                  ps.setString(7, e.type());
                  ps.setString(8, e.json());
                }));
  }

  /**
   * A page of an archive's events in event-time order.
   *
   * @param after the position of the last event of the previous page, or {@code null}
   */
  public List<ArchivedEvent> page(
      long archiveId, Filter filter, ArchivedEvent.Position after, int limit) {
    StringBuilder sql =
        new StringBuilder("select " + COLUMNS + " from archived_event where archive_id = ?");
    List<Object> args = new ArrayList<>(List.of(archiveId));
    if (filter.type() != null) {
      sql.append(" and event_type = ?");
      args.add(filter.type());
    }
    if (filter.source() != null) {
      sql.append(" and event_source = ?");
      args.add(filter.source());
    }
    if (filter.from() != null) {
      sql.append(" and event_time >= ?");
      args.add(filter.from());
    }
    if (filter.to() != null) {
      sql.append(" and event_time < ?");
      args.add(filter.to());
    }
    if (after != null) {
      sql.append(
          " and (event_time > ? or (event_time = ? and (archived_at > ? or (archived_at = ? and row_id > ?))))");
      args.addAll(
          List.of(
              after.eventTime(),
              after.eventTime(),
              after.archivedAt(),
              after.archivedAt(),
              after.rowId()));
    }
    sql.append(" order by event_time, archived_at, row_id fetch first ? rows only");
    args.add(limit);
    return jdbc.query(
        sql.toString(),
        (rs, i) ->
            new ArchivedEvent(
                rs.getLong(1),
                rs.getString(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getString(5),
                rs.getString(6),
                rs.getString(7),
                rs.getString(8)),
        args.toArray());
  }

  /** Events of an archive with event time in {@code [from, to)}. */
  public long count(long archiveId, long from, long to) {
    Long n =
        jdbc.queryForObject(
            "select count(*) from archived_event where archive_id = ? and event_time >= ?"
                + " and event_time < ?",
            Long.class,
            archiveId,
            from,
            to);
    return n == null ? 0 : n;
  }

  /** Events and bytes an archive holds now. */
  public long[] totals(long archiveId) {
    return jdbc.queryForObject(
        "select count(*), coalesce(sum(length(event_json)), 0) from archived_event"
            + " where archive_id = ?",
        (rs, i) -> new long[] {rs.getLong(1), rs.getLong(2)},
        archiveId);
  }
}
