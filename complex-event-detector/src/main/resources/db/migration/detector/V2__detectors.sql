-- Complex event detectors (Esper EPL). Portable across H2 and PostgreSQL.
create table detector (
    name         varchar(100)  not null primary key,
    inputs_json  text          not null,
    epl          text          not null,
    emits        varchar(255)  not null,
    clock        varchar(20)   not null,
    created_at   timestamp with time zone not null
);
