-- The event types the author of a detector may use (issue 19): a JSON array of TypeScope patterns, e.g.
-- ["com.a.*"], checked against its inputs and emits at deploy time and again for every derived event.
-- NULL: rows stored before this column existed, and detectors of unscoped authors, are unscoped.
alter table detector add column author_scope text;
