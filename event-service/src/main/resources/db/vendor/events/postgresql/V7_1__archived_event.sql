-- Archived events on PostgreSQL: partitioned by archive (LIST), each archive by archive time in days (RANGE).
-- Retention drops whole daily partitions (no bulk DELETE, nothing to vacuum); deleting an archive drops its tree.
-- The service creates the partitions of each archive and day ahead of use (ArchivePartitions).
create table archived_event (
    archive_id   bigint        not null,
    row_id       varchar(64)   not null,
    archived_at  bigint        not null,
    event_time   bigint        not null,
    event_id     varchar(1024) not null,
    event_source varchar(2048) not null,
    event_type   varchar(1024) not null,
    event_json   text          not null
) partition by list (archive_id);
create index archived_event_time on archived_event (archive_id, event_time, archived_at, row_id);
