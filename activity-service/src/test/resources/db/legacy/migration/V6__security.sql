-- Security: subscription owners, API keys and the audit log. Portable across H2 and PostgreSQL.
-- One migration for the whole change (version 6 only). It lives in event-service because the core stores the
-- subscription owner; the api_key and audit_event tables are used by the activity-service application.

-- The identity that created a subscription (key:<id>, jwt:<subject>); null for subscriptions created before.
alter table subscription add column owner varchar(255);

-- API keys. The secret itself is never stored: only the SHA-256 of its 256 random bits (hex).
create table api_key (
    id             varchar(32)   not null primary key,
    name           varchar(255)  not null,
    -- comma-separated role names (admin, author, subscriber, publisher, metrics)
    roles          varchar(255)  not null,
    -- JSON array of event-type patterns the key may publish or subscribe to, e.g. ["com.example.meter.*"]
    event_types    text,
    secret_sha256  varchar(64)   not null,
    created_at     bigint        not null,
    created_by     varchar(255),
    last_used_at   bigint,
    revoked_at     bigint
);

-- Who changed what: every create, update and delete of the management API, with its outcome. Times are epoch
-- milliseconds (UTC), as in the delivery store.
create table audit_event (
    id             varchar(64)   not null primary key,
    occurred_at    bigint        not null,
    actor          varchar(255)  not null,
    action         varchar(32)   not null,
    resource_kind  varchar(32)   not null,
    resource_id    varchar(2048),
    outcome        varchar(16)   not null,
    status         integer       not null
);
create index audit_event_time on audit_event (occurred_at, id);
