-- Archives (events kept by pattern for a retention period) and replays. Portable across H2 and PostgreSQL; the
-- archived events themselves live in a table whose layout differs (db/vendor/events/<vendor>/V7_1__archived_event.sql).
create table archive (
    name          varchar(100)  not null primary key,
    id            bigint        not null unique,
    pattern_json  text,
    retention_ms  bigint        not null,
    created_at    bigint        not null,
    event_count   bigint        not null,
    size_bytes    bigint        not null
);

create table replay (
    name              varchar(100)  not null primary key,
    archive_name      varchar(100)  not null,
    from_ms           bigint        not null,
    to_ms             bigint        not null,
    destinations_json text,
    state             varchar(16)   not null,
    total             bigint        not null,
    replayed          bigint        not null,
    -- the last event replayed (keyset position): event time, archive time, id
    last_event_time   bigint,
    last_archived_at  bigint,
    last_event_row    varchar(64),
    error             varchar(1000),
    created_by        varchar(255),
    claimed_by        varchar(128),
    lease_until       bigint,
    created_at        bigint        not null,
    started_at        bigint,
    finished_at       bigint
);
