-- Durable delivery: deliveries that did not succeed on their first attempt wait here for their retries, and
-- deliveries given up for good are kept as dead letters to browse and redrive. Portable across H2 and PostgreSQL.
-- Times are epoch milliseconds (UTC) so that due-time comparisons are plain integer comparisons on both databases.
alter table subscription add column max_pending integer default 10000 not null;

create table parked_delivery (
    id               varchar(64)   not null primary key,
    subscription_id  varchar(64)   not null,
    -- RETRY: waiting for the next attempt at its target; DEAD_LETTER: attempts exhausted, waiting to be handed
    -- to the dead-letter channel.
    phase            varchar(16)   not null,
    event_id         varchar(1024) not null,
    event_source     varchar(2048) not null,
    event_type       varchar(1024) not null,
    event_json       text          not null,
    attempts         integer       not null,
    received_at      bigint        not null,
    next_attempt_at  bigint        not null,
    last_error       varchar(1000),
    last_attempt_at  bigint,
    -- why the delivery was given up (DEAD_LETTER phase)
    dead_letter_reason varchar(1000),
    -- A replica that claimed the row holds it until locked_until; lock_token fences late results of a lost lease.
    locked_by        varchar(128),
    lock_token       varchar(64),
    locked_until     bigint,
    created_at       bigint        not null
);
create index parked_delivery_due on parked_delivery (next_attempt_at);
create index parked_delivery_subscription on parked_delivery (subscription_id, created_at);

create table dead_letter (
    id               varchar(64)   not null primary key,
    -- null for events dead-lettered outside a subscription (invalid inbound events, detector and rule loops)
    subscription_id  varchar(64),
    origin           varchar(2048) not null,
    event_id         varchar(1024) not null,
    event_source     varchar(2048) not null,
    event_type       varchar(1024) not null,
    event_json       text          not null,
    attempts         integer       not null,
    reason           varchar(1000) not null,
    received_at      bigint        not null,
    dead_lettered_at bigint        not null
);
create index dead_letter_subscription on dead_letter (subscription_id, dead_lettered_at, id);
create index dead_letter_time on dead_letter (dead_lettered_at);
