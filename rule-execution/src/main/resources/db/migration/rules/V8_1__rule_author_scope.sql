-- The event types the author of a rule set may use (issue 19): a JSON array of TypeScope patterns, e.g.
-- ["com.a.*"], checked against what the rule set receives, publishes and sends at deploy time and again when an
-- action emits. NULL: rows stored before this column existed, and rule sets of unscoped authors, are unscoped.
alter table rule add column author_scope text;
