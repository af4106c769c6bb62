-- The identity that created a subscription (key:<id>, jwt:<subject>); null for subscriptions created before.
-- Portable across H2 and PostgreSQL. Version 6 is the version this statement had in the single history of before,
-- where it shared V6__security.sql with the security tables (now in activity-service, docs/migrations.md).
alter table subscription add column owner varchar(255);
