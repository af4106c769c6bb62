-- Rule sets may be partitioned by a key so that, with several replicas, each key is processed by one of them.
alter table rule add column partition_by varchar(255);
