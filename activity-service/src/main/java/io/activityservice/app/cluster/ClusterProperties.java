package io.activityservice.app.cluster;

import java.net.InetAddress;
import java.time.Duration;
import java.util.UUID;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Running as several replicas ({@code activity.cluster.*}). Configuration changes propagate between
 * replicas sharing a database whether or not {@code enabled} is set; {@code enabled} also routes
 * detector and rule-set input through the broker so each partition is processed by one replica.
 *
 * @param enabled several replicas: detectors and rule sets get their events through internal
 *     channels (false: one node, fed directly; a replica refuses to start when another live replica
 *     on its database runs in the other mode, or at all while this is false)
 * @param internalChannel internal channel of a detector or rule set, with {@code {kind}} and {@code
 *     {name}} placeholders
 * @param configPollInterval how often a replica checks the configuration version, in case it missed
 *     a notification (changes arrive by PostgreSQL NOTIFY within milliseconds, a replica whose
 *     listening connection broke catches up as soon as it reconnects, and on H2 there is one
 *     replica)
 * @param heartbeat how often a replica refreshes its row in the cluster view
 * @param replicaId this replica's name (empty: host-pid-random)
 * @param applyWait how long a create, update or delete of a definition (event type, subscription,
 *     inbound channel, detector, rule set, archive) waits, before it answers, for every live
 *     replica to apply it (0 = answer at once). If the bound passes the answer is 202 with header
 *     {@code Activity-Config-Lagging} naming the replicas that have not applied it yet and a {@code
 *     Link} to {@code GET /api/v1/cluster/versions/{version}} to poll. A replica alone on its
 *     database (or on H2) answers at once.
 */
@ConfigurationProperties("activity.cluster")
public record ClusterProperties(
    @DefaultValue("false") Boolean enabled,
    @DefaultValue("jms:queue:activity.internal.{kind}.{name}") String internalChannel,
    @DefaultValue("30s") Duration configPollInterval,
    @DefaultValue("5s") Duration heartbeat,
    String replicaId,
    @DefaultValue("10s") Duration applyWait) {

  public ClusterProperties {
    internalChannel = internalChannel.trim();
    // Not a default: computed per process, so two replicas started with the same settings get
    // different names.
    replicaId = replicaId == null || replicaId.isBlank() ? defaultReplicaId() : replicaId.trim();
    if (applyWait.isNegative()) {
      throw new IllegalArgumentException(
          "activity.cluster.apply-wait must be 0 (do not wait) or more, e.g. 10s");
    }
    if (!internalChannel.contains("{name}")) {
      throw new IllegalArgumentException(
          "activity.cluster.internal-channel must contain {name} (and usually {kind}),"
              + " e.g. jms:queue:activity.internal.{kind}.{name}");
    }
    if (configPollInterval.toMillis() < 10 || heartbeat.toMillis() < 100) {
      throw new IllegalArgumentException(
          "activity.cluster.config-poll-interval must be at least 10ms and heartbeat"
              + " at least 100ms, e.g. 30s and 5s");
    }
  }

  private static String defaultReplicaId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "replica";
    }
    return host
        + "-"
        + ProcessHandle.current().pid()
        + "-"
        + UUID.randomUUID().toString().substring(0, 8);
  }
}
