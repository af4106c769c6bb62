-- Each replica's mode and heartbeat in its row: a replica starting on this database refuses to run beside live
-- replicas of the other mode (ClusterModeGuard), and tells a crashed replica's fresh row from a running one by
-- waiting one of that replica's heartbeats.
alter table cluster_member add column clustered boolean default false not null;
alter table cluster_member add column heartbeat_millis bigint default 5000 not null;
