package io.activityservice.app.cluster;

import io.activityservice.events.cluster.ClusterMembers;
import io.activityservice.events.cluster.ConfigChangeLog;
import io.activityservice.events.cluster.ConfigPropagator;
import io.activityservice.events.cluster.ProcessorRouting;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/cluster}: live replicas, the configuration version each runs, what each owns.
 */
@RestController
@RequestMapping("/api/v1/cluster")
class ClusterController {

  /**
   * This replica.
   *
   * @param replicaId its name
   * @param configVersion the configuration version it runs (every change up to it is applied here)
   * @param clustered whether detectors and rule sets get their input through internal channels
   * @param owns detectors and rule sets whose internal channel it consumes, with the keys it saw
   *     recently
   */
  record Self(
      String replicaId, long configVersion, boolean clustered, List<Map<String, Object>> owns) {}

  /**
   * A replica as last reported by its heartbeat; {@code mode} is {@code cluster} or {@code single}.
   */
  record Replica(
      String replicaId,
      String address,
      boolean live,
      String mode,
      OffsetDateTime startedAt,
      OffsetDateTime lastSeen,
      long configVersion,
      Object owns) {}

  /**
   * @param mode {@code cluster} (detectors and rule sets fed through internal channels, {@code
   *     activity.cluster.enabled=true}) or {@code single} (one replica feeds them directly)
   * @param configVersion the latest configuration version in the database
   * @param self the replica that answered
   * @param replicas every replica seen in the last hour, live ones first
   */
  record ClusterView(String mode, long configVersion, Self self, List<Replica> replicas) {}

  private final ConfigChangeLog changes;
  private final ConfigPropagator propagator;
  private final ClusterProperties props;
  private final ObjectProvider<ProcessorRouting> routing;
  private final ClusterMembers members;

  ClusterController(
      ConfigChangeLog changes,
      ConfigPropagator propagator,
      ClusterProperties props,
      ObjectProvider<ProcessorRouting> routing,
      ClusterMembers members) {
    this.changes = changes;
    this.propagator = propagator;
    this.props = props;
    this.routing = routing;
    this.members = members;
  }

  /** One change made elsewhere and how long after its commit it took effect here. */
  record AppliedChange(long version, long lagMillis) {}

  /** The latest changes made by other replicas, with the time they took to take effect here. */
  @GetMapping("/self/lags")
  List<AppliedChange> lags() {
    return propagator.recentLags().stream().map(l -> new AppliedChange(l[0], l[1])).toList();
  }

  /** This replica only, from memory: cheap enough to poll. */
  @GetMapping("/self")
  Self self() {
    ProcessorRouting r = routing.getIfAvailable();
    return new Self(
        props.replicaId(),
        propagator.appliedVersion(),
        r != null,
        r == null ? List.of() : r.ownership());
  }

  @GetMapping
  ClusterView cluster() {
    ProcessorRouting r = routing.getIfAvailable();
    Self self =
        new Self(
            props.replicaId(),
            propagator.appliedVersion(),
            r != null,
            r == null ? List.of() : r.ownership());
    List<Replica> replicas =
        members.members().stream()
            .map(
                m ->
                    new Replica(
                        m.replicaId(),
                        m.address(),
                        m.live(),
                        mode(m.clustered()),
                        time(m.startedAt()),
                        time(m.lastSeen()),
                        m.configVersion(),
                        io.activityservice.events.json.Json.MAPPER.convertValue(
                            m.ownership(), Object.class)))
            .toList();
    return new ClusterView(mode(props.enabled()), changes.currentVersion(), self, replicas);
  }

  private static String mode(boolean clustered) {
    return clustered ? "cluster" : "single";
  }

  private static OffsetDateTime time(long millis) {
    return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
  }
}
