-- Detectors may be partitioned by a key so that, with several replicas, each key is processed by one of them.
alter table detector add column partition_by varchar(255);
