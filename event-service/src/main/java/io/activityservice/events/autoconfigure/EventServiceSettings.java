package io.activityservice.events.autoconfigure;

import io.activityservice.events.delivery.DeliverySettings;
import io.activityservice.events.ingest.InboundChannelDefinition;
import io.activityservice.events.registry.UnregisteredTypePolicy;
import io.activityservice.events.subscription.PatternLimits;
import io.activityservice.events.transform.TransformLimits;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything {@link EventServiceAutoConfiguration} needs to know, handed in as one bean by the
 * application that binds its configuration properties (activity-service's {@code *Properties}
 * records). The module names no property: an application may bind these settings from any source,
 * or build them in code. Archives and replays take their own settings beans ({@link
 * io.activityservice.events.archive.ArchiveService.Settings}, {@link
 * io.activityservice.events.archive.ReplayService.Settings}).
 *
 * <p>Why handed in rather than bound here: the {@code activity.*} names, their defaults and their
 * start-up validation ("how to fix it" messages) live in one place, the application's
 * {@code @ConfigurationProperties} records, beside the settings of security, console and rules that
 * share their prefixes; this module keeps its core free of property names (its tests and the
 * benchmarks build the same objects in code), as the adapters' SPI is free of Spring.
 *
 * @param replicaId this replica's id (delivery leases, cluster view, replays)
 * @param unregisteredTypes what ingest does with events of unregistered types
 * @param routing the router's bounds and the dead-letter channel
 * @param delivery durable delivery (park after, leases, retry worker)
 * @param maxSubscriptionTags how many subscriptions get their own delivery metric tags
 * @param patterns bounds on subscription patterns
 * @param maxAttributeLength the longest CloudEvents attribute value ingest accepts
 * @param cluster the replicas' heartbeat and configuration propagation
 * @param inbound inbound channels from the configuration, started once the application is ready
 * @param transforms bounds on each evaluation of a subscription's transformation
 */
public record EventServiceSettings(
    String replicaId,
    UnregisteredTypePolicy unregisteredTypes,
    Routing routing,
    DeliverySettings delivery,
    int maxSubscriptionTags,
    PatternLimits patterns,
    int maxAttributeLength,
    Cluster cluster,
    List<InboundChannelDefinition> inbound,
    TransformLimits transforms) {

  /** Settings with the default bounds on transformations. */
  public EventServiceSettings(
      String replicaId,
      UnregisteredTypePolicy unregisteredTypes,
      Routing routing,
      DeliverySettings delivery,
      int maxSubscriptionTags,
      PatternLimits patterns,
      int maxAttributeLength,
      Cluster cluster,
      List<InboundChannelDefinition> inbound) {
    this(
        replicaId,
        unregisteredTypes,
        routing,
        delivery,
        maxSubscriptionTags,
        patterns,
        maxAttributeLength,
        cluster,
        inbound,
        TransformLimits.DEFAULT);
  }

  public EventServiceSettings {
    Objects.requireNonNull(replicaId, "replicaId");
    Objects.requireNonNull(routing, "routing");
    Objects.requireNonNull(delivery, "delivery");
    Objects.requireNonNull(patterns, "patterns");
    Objects.requireNonNull(cluster, "cluster");
    inbound = inbound == null ? List.of() : List.copyOf(inbound);
    Objects.requireNonNull(transforms, "transforms");
  }

  /**
   * The router's settings.
   *
   * @param maxInFlight events routed and not yet settled before publishers are told to back off
   * @param deadLetter the channel URI that receives what a subscription without its own dead-letter
   *     channel gives up on, or null/blank for none (errors name it {@code
   *     activity.routing.dead-letter})
   * @param dedupWindow how long an event id is remembered to drop duplicates
   * @param dedupMaxEntries the most event ids remembered
   */
  public record Routing(
      int maxInFlight, String deadLetter, Duration dedupWindow, int dedupMaxEntries) {}

  /**
   * Several replicas on one database.
   *
   * @param enabled whether detector and rule-set input is routed through the broker (cluster mode)
   * @param heartbeat how often this replica writes its heartbeat
   * @param configPollInterval how often configuration changes are polled (besides PostgreSQL
   *     notifications)
   */
  public record Cluster(boolean enabled, Duration heartbeat, Duration configPollInterval) {}
}
