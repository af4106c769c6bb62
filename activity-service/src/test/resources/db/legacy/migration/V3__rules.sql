-- ECA rules (Drools DRL) deployed through /api/v1/rules. Portable across H2 and PostgreSQL.
create table rule (
    name        varchar(128)  not null primary key,
    drl         text          not null,
    version     bigint        not null,
    created_at  timestamp with time zone not null,
    updated_at  timestamp with time zone not null
);
