package io.activityservice.app.config;

import io.activityservice.events.registry.UnregisteredTypePolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the Activity Service ({@code activity.*}).
 *
 * @param unregisteredTypes what to do with events whose type is not registered: {@code accept} or
 *     {@code reject}
 * @param maxBodySize largest accepted request body; larger ones get 413
 * @param routing router settings
 * @param inbound channels the service listens on from start-up (more can be added with the API),
 *     each with {@code uri}, {@code default-type}, {@code default-source} and adapter-specific
 *     {@code properties}, e.g. {@code activity.inbound[0].uri=jms:topic:activity.events.in}
 */
@ConfigurationProperties("activity")
public record ActivityProperties(
    @DefaultValue("accept") UnregisteredTypePolicy unregisteredTypes,
    @DefaultValue("256KB") DataSize maxBodySize,
    @DefaultValue Routing routing,
    @DefaultValue List<Inbound> inbound) {

  public ActivityProperties {
    inbound = List.copyOf(inbound);
    if (maxBodySize.toBytes() < 1024) {
      throw new IllegalArgumentException("activity.max-body-size must be at least 1KB, e.g. 256KB");
    }
  }

  /**
   * @param maxInFlight events routed at once (at least 1); beyond it REST answers 503 and inbound
   *     channels redeliver
   * @param deadLetter channel URI for failed deliveries of subscriptions without their own
   *     deadLetter, and for invalid inbound events; empty = log and drop
   * @param dedupWindow how long (source, id) pairs are remembered to drop redelivered duplicates; 0
   *     disables
   * @param dedupMaxEntries bound on remembered pairs
   * @param parkAfter how long an event waits for a delivery's first attempt before the delivery is
   *     parked in the durable retry store; an inbound message (or REST request) waits at most about
   *     this long for a slow subscriber
   */
  public record Routing(
      @DefaultValue("10000") int maxInFlight,
      String deadLetter,
      @DefaultValue("10m") Duration dedupWindow,
      @DefaultValue("200000") int dedupMaxEntries,
      @DefaultValue("1s") Duration parkAfter) {
    public Routing {
      if (maxInFlight < 1 || dedupMaxEntries < 1) {
        throw new IllegalArgumentException(
            "activity.routing.max-in-flight and dedup-max-entries must be at least 1,"
                + " e.g. 10000 and 200000");
      }
      if (dedupWindow.isNegative()) {
        throw new IllegalArgumentException("activity.routing.dedup-window must be >= 0, e.g. 10m");
      }
      if (parkAfter.isNegative()
          || parkAfter.isZero()
          || parkAfter.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException(
            "activity.routing.park-after must be between 1ms and 1m, e.g. 1s");
      }
    }
  }

  /**
   * @param uri channel URI, e.g. {@code jms:topic:activity.events.in}
   * @param defaultType CloudEvents type given to plain messages that carry no CloudEvents
   *     attributes
   * @param defaultSource CloudEvents source for such messages
   * @param properties adapter-specific settings
   */
  public record Inbound(
      String uri, String defaultType, String defaultSource, Map<String, String> properties) {}
}
