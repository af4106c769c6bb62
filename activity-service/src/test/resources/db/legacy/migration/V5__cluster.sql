-- Running as several replicas on one database. Portable across H2 and PostgreSQL.
-- Every configuration change (types, subscriptions, inbound channels, detectors, rules, ...) is recorded here in the
-- same transaction as the change itself, under the next configuration version. Replicas apply the changes after the
-- version they run (woken by PostgreSQL NOTIFY, and by a periodic version check for missed signals).
create table config_state (
    id       integer not null primary key,
    version  bigint  not null
);
insert into config_state (id, version) values (1, 0);

create table config_change (
    version     bigint        not null primary key,
    kind        varchar(32)   not null,
    change_key  varchar(2048) not null,
    replica     varchar(128)  not null,
    changed_at  bigint        not null
);

-- Live replicas: each one refreshes its row every few seconds (GET /api/v1/cluster).
create table cluster_member (
    replica_id      varchar(128)  not null primary key,
    address         varchar(512),
    started_at      bigint        not null,
    last_seen       bigint        not null,
    config_version  bigint        not null,
    ownership_json  text
);
