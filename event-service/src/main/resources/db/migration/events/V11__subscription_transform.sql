-- Per-subscription transformations and delivery formats (issue 25). Portable across H2 and PostgreSQL.
-- transform_json: {"data": "<JSONata>", "attributes": {"<name>": "<JSONata>"}}, or null for none;
-- delivery_format: structured | binary | data, or null for the transport's default.
alter table subscription add column transform_json text;
alter table subscription add column delivery_format varchar(16);
-- Whether a parked delivery or dead letter holds the subscription's transformation of the event (retries and
-- redrives then send it as it is: an event is transformed once per delivery) or the event as received.
alter table parked_delivery add column shaped boolean default false not null;
alter table dead_letter add column shaped boolean default false not null;
