-- The compiled form of a detector (Esper's generated classes and manifest, as JSON), stored by the replica that
-- created it so that the other replicas start it without compiling again (issue 21). NULL: compile from the EPL.
-- Portable across H2 and PostgreSQL.
alter table detector add column compiled_form text;
