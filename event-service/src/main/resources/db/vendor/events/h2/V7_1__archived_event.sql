-- Archived events on H2 (the embedded default, one node): one table; retention deletes old rows.
create table archived_event (
    archive_id   bigint        not null,
    row_id       varchar(64)   not null,
    archived_at  bigint        not null,
    event_time   bigint        not null,
    event_id     varchar(1024) not null,
    event_source varchar(2048) not null,
    event_type   varchar(1024) not null,
    event_json   text          not null
);
create index archived_event_time on archived_event (archive_id, event_time, archived_at, row_id);
create index archived_event_archived_at on archived_event (archive_id, archived_at);
