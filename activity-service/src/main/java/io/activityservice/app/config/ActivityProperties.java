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
    routing = routing == null ? new Routing(0, null, null, 0) : routing;
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
   */
  public record Routing(int maxInFlight, String deadLetter, Duration dedupWindow, int dedupMaxEntries) {
    public Routing {
      maxInFlight = maxInFlight <= 0 ? 10_000 : maxInFlight;
      dedupWindow = dedupWindow == null ? Duration.ofMinutes(10) : dedupWindow;
      dedupMaxEntries = dedupMaxEntries <= 0 ? 200_000 : dedupMaxEntries;
      if (dedupWindow.isNegative()) {
        throw new IllegalArgumentException("activity.routing.dedup-window must be >= 0, e.g. 10m");
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
