-- Event registry, subscriptions and inbound channels. Portable across H2 (embedded default) and PostgreSQL.
create table event_type (
    type         varchar(255)  not null primary key,
    description  varchar(4000),
    owner        varchar(255),
    schema_json  text,
    version      bigint        not null,
    created_at   timestamp with time zone not null,
    updated_at   timestamp with time zone not null
);

create table subscription (
    id                  varchar(64)   not null primary key,
    name                varchar(255)  not null,
    pattern_json        text,
    filter_expr         text,
    target              varchar(2048) not null,
    max_attempts        integer       not null,
    initial_backoff_ms  bigint        not null,
    max_backoff_ms      bigint        not null,
    max_age_ms          bigint        not null,
    dead_letter         varchar(2048),
    created_at          timestamp with time zone not null
);

create table inbound_channel (
    uri             varchar(2048) not null primary key,
    default_type    varchar(255),
    default_source  varchar(2048),
    properties_json text,
    created_at      timestamp with time zone not null
);
