package io.activityservice.app.config;

import io.activityservice.events.registry.UnregisteredTypePolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the Activity Service ({@code activity.*}).
 *
 * @param unregisteredTypes what to do with events whose type is not registered: {@code accept} (default) or {@code reject}
 * @param maxBodySize       largest accepted request body; larger ones get 413 (default 256KB)
 * @param routing           router settings
 * @param inbound           channels the service listens on from start-up (more can be added with the API)
 */
@ConfigurationProperties("activity")
public record ActivityProperties(UnregisteredTypePolicy unregisteredTypes, DataSize maxBodySize, Routing routing,
                                 List<Inbound> inbound) {

  public ActivityProperties {
    unregisteredTypes = unregisteredTypes == null ? UnregisteredTypePolicy.ACCEPT : unregisteredTypes;
    maxBodySize = maxBodySize == null ? DataSize.ofKilobytes(256) : maxBodySize;
    routing = routing == null ? new Routing(0, null, null, 0, null) : routing;
    inbound = inbound == null ? List.of() : List.copyOf(inbound);
    if (maxBodySize.toBytes() < 1024) {
      throw new IllegalArgumentException("activity.max-body-size must be at least 1KB, e.g. 256KB");
    }
  }

  /**
   * @param maxInFlight       events routed at once; beyond it REST answers 503 and inbound channels redeliver (default 10000)
   * @param deadLetter        channel URI for failed deliveries of subscriptions without their own deadLetter, and for
   *                          invalid inbound events; empty = log and drop
   * @param dedupWindow       how long (source, id) pairs are remembered to drop redelivered duplicates; 0 disables (default 10m)
   * @param dedupMaxEntries   bound on remembered pairs (default 200000)
   * @param parkAfter         how long an event waits for a delivery's first attempt before the delivery is parked in
   *                          the durable retry store; an inbound message (or REST request) waits at most about this
   *                          long for a slow subscriber (default 1s)
   */
  public record Routing(int maxInFlight, String deadLetter, Duration dedupWindow, int dedupMaxEntries,
                        Duration parkAfter) {
    public Routing {
      maxInFlight = maxInFlight <= 0 ? 10_000 : maxInFlight;
      dedupWindow = dedupWindow == null ? Duration.ofMinutes(10) : dedupWindow;
      dedupMaxEntries = dedupMaxEntries <= 0 ? 200_000 : dedupMaxEntries;
      parkAfter = parkAfter == null ? Duration.ofSeconds(1) : parkAfter;
      if (dedupWindow.isNegative()) {
        throw new IllegalArgumentException("activity.routing.dedup-window must be >= 0, e.g. 10m");
      }
      if (parkAfter.isNegative() || parkAfter.isZero() || parkAfter.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException("activity.routing.park-after must be between 1ms and 1m, e.g. 1s");
      }
    }
  }

  /**
   * @param uri           channel URI, e.g. {@code jms:topic:activity.events.in}
   * @param defaultType   CloudEvents type given to plain messages that carry no CloudEvents attributes
   * @param defaultSource CloudEvents source for such messages
   * @param properties    adapter-specific settings
   */
  public record Inbound(String uri, String defaultType, String defaultSource, Map<String, String> properties) {
  }
}
