package io.activityservice.events.routing;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.channel.ChannelRegistry;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends events that could not be delivered to a dead-letter channel, with extensions saying why:
 * {@code deadletterreason}, {@code deadletterattempts}, {@code deadlettersubscription},
 * {@code deadlettertarget}. Without any dead-letter channel the event is logged and dropped.
 */
public class DeadLetters {

  private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);
  private static final int MAX_REASON = 1000;

  private final ChannelRegistry channels;
  private final ChannelUri fallback;

  /** @param fallback dead-letter channel for subscriptions without their own, or {@code null} */
  public DeadLetters(ChannelRegistry channels, ChannelUri fallback) {
    this.channels = channels;
    this.fallback = fallback;
  }

  /**
   * Dead-letters one event.
   *
   * @param channel the subscription's own dead-letter channel, or {@code null} for the fallback
   * @return completes when the dead-letter channel accepted the event (or it was dropped)
   */
  public CompletableFuture<Void> send(CloudEvent event, ChannelUri channel, String subscriptionId,
                                      String target, int attempts, String reason) {
    ChannelUri to = channel != null ? channel : fallback;
    if (to == null) {
      log.warn("dropping event {} from {} for subscription {} after {} attempts: {} "
              + "(set a deadLetter on the subscription or activity.routing.dead-letter to keep such events)",
          event.getId(), event.getSource(), subscriptionId, attempts, reason);
      return CompletableFuture.completedFuture(null);
    }
    CloudEvent annotated = CloudEventBuilder.from(event)
        .withExtension("deadletterreason", truncate(reason))
        .withExtension("deadletterattempts", attempts)
        .withExtension("deadlettersubscription", subscriptionId == null ? "none" : subscriptionId)
        .withExtension("deadlettertarget", target == null ? "none" : target)
        .build();
    try {
      return channels.outbound(to).send(annotated);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static String truncate(String reason) {
    String r = reason == null ? "unknown" : reason;
    return r.length() <= MAX_REASON ? r : r.substring(0, MAX_REASON);
  }
}
