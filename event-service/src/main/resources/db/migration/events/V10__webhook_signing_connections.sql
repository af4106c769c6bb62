-- Webhooks a receiver can trust (issue 26). Portable across H2 and PostgreSQL.
-- A subscription's webhook settings: Standard Webhooks signing, a named connection's credentials, flow control.
alter table subscription add column signing_scheme varchar(32);
alter table subscription add column connection_name varchar(255);
alter table subscription add column flow_json varchar(2000);

-- Signing secrets, AES-GCM encrypted with the configured key (activity.secrets.*). A rotation gives the previous
-- secrets an expiry (the overlap); until then both sign. Expired rows are deleted by the next rotation.
create table subscription_signing_secret (
    id              varchar(64)   not null primary key,
    subscription_id varchar(64)   not null,
    secret_enc      varchar(512)  not null,
    created_at      bigint        not null,
    expires_at      bigint
);
create index subscription_signing_secret_sub on subscription_signing_secret (subscription_id);

-- Named outbound credentials (API key header, basic, OAuth 2 client credentials); secret parts encrypted.
create table webhook_connection (
    name            varchar(255)  not null primary key,
    type            varchar(40)   not null,
    settings_json   text          not null,
    secrets_enc     text          not null,
    owner           varchar(255),
    created_at      bigint        not null
);

-- The current OAuth 2 access token of a connection, encrypted, shared by the replicas: one token endpoint call per
-- expiry for the whole cluster, not per replica.
create table webhook_connection_token (
    connection_name varchar(255)  not null primary key,
    token_enc       text          not null,
    expires_at      bigint        not null,
    fetched_at      bigint        not null
);
