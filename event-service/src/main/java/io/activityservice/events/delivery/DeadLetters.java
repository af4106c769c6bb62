package io.activityservice.events.delivery;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.tracing.EventTracing;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where events go that cannot be delivered: kept by the service ({@code dead_letter} table, to
 * browse and redrive) and handed to a dead-letter channel when one is set, with extensions saying
 * why: {@code deadletterreason}, {@code deadletterattempts}, {@code deadlettersubscription}, {@code
 * deadlettertarget}.
 */
public class DeadLetters {

  private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);
  private static final int MAX_REASON = 1000;

  /**
   * Why and where an event was given up.
   *
   * @param event the event
   * @param subscriptionId the subscription it was for, or {@code null}
   * @param origin where it failed, without credentials (a target URI, {@code inbound:<channel>},
   *     {@code detector:<name>}, {@code rule:<name>})
   * @param attempts attempts made (0 if none)
   * @param reason why
   */
  public record DeadLetter(
      CloudEvent event, String subscriptionId, String origin, int attempts, String reason) {}

  private final ChannelRegistry channels;
  private final ChannelUri fallback;
  private final Function<DeadLetterRecord, CompletableFuture<Void>> keep;
  private final Clock clock;
  private final Supplier<EventTracing> tracing;

  /**
   * @param fallback dead-letter channel for subscriptions without their own, or {@code null}
   * @param keep stores a dead letter durably (the service's dead-letter table)
   * @param tracing traces the hand-over to a dead-letter channel (read on each one: the delivery's
   *     tracing is set after start-up)
   */
  public DeadLetters(
      ChannelRegistry channels,
      ChannelUri fallback,
      Function<DeadLetterRecord, CompletableFuture<Void>> keep,
      Clock clock,
      Supplier<EventTracing> tracing) {
    this.channels = channels;
    this.fallback = fallback;
    this.keep = keep;
    this.clock = clock;
    this.tracing = tracing;
  }

  /**
   * The channel a subscription's dead letters go to: its own, else the fallback, else {@code null}.
   */
  public ChannelUri channelFor(ChannelUri own) {
    return own != null ? own : fallback;
  }

  /**
   * Dead-letters an event that was never parked (an invalid inbound event, a derivation loop):
   * keeps it and hands it to {@code channel} (or the fallback).
   *
   * @return completes when it was kept and, if there is a dead-letter channel, the channel accepted
   *     it
   */
  public CompletableFuture<Void> send(DeadLetter letter, ChannelUri channel) {
    long now = clock.millis();
    CloudEvent e = letter.event();
    CompletableFuture<Void> kept;
    try {
      kept =
          keep.apply(
              new DeadLetterRecord(
                  UUID.randomUUID().toString(),
                  letter.subscriptionId(),
                  letter.origin(),
                  e.getId(),
                  e.getSource().toString(),
                  e.getType(),
                  new String(CloudEventJson.encode(e), StandardCharsets.UTF_8),
                  letter.attempts(),
                  truncate(letter.reason()),
                  now,
                  now));
    } catch (RuntimeException ex) {
      kept = CompletableFuture.failedFuture(ex);
    }
    ChannelUri to = channelFor(channel);
    if (to == null) {
      log.warn(
          "dead letter {} from {} ({}) kept by the service only: {}",
          LogSafe.text(e.getId()),
          LogSafe.text(e.getSource()),
          LogSafe.text(letter.origin()),
          LogSafe.text(letter.reason(), 1024));
      return kept;
    }
    return CompletableFuture.allOf(kept, forward(letter, to));
  }

  /**
   * Hands a dead letter to a channel; completes when the channel accepted it. Traced as a producer
   * span {@code send <channel>} in the event's trace, with the reason ({@value #REASON}) and where
   * it failed ({@value #ORIGIN}); the channel's consumer gets that span's context.
   */
  public CompletableFuture<Void> forward(DeadLetter letter, ChannelUri to) {
    EventTracing.Hop hop = EventTracing.Hop.NONE;
    try {
      CloudEvent annotated = annotate(letter);
      EventTracing t = tracing.get();
      hop = t.deliver(null, annotated, t.outbound(to), letter.subscriptionId(), letter.attempts());
      if (hop.recording()) {
        hop.attribute(REASON, truncate(letter.reason()));
        hop.attribute(ORIGIN, letter.origin() == null ? "none" : letter.origin());
      }
      CompletableFuture<Void> sent =
          channels.outbound(to).send(t.continued(hop, OutboundEvent.of(annotated)));
      EventTracing.Hop span = hop;
      sent.whenComplete((ok, error) -> span.end(error));
      return sent;
    } catch (RuntimeException e) {
      hop.end(e);
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The span attribute of a forwarded dead letter's reason. */
  static final String REASON = "activity.dead_letter.reason";

  /** The span attribute of where a forwarded dead letter failed (target, inbound channel…). */
  static final String ORIGIN = "activity.dead_letter.origin";

  /** The event with the dead-letter extensions. */
  static CloudEvent annotate(DeadLetter letter) {
    return CloudEventBuilder.from(letter.event())
        .withExtension("deadletterreason", truncate(letter.reason()))
        .withExtension("deadletterattempts", letter.attempts())
        .withExtension(
            "deadlettersubscription",
            letter.subscriptionId() == null ? "none" : letter.subscriptionId())
        .withExtension("deadlettertarget", letter.origin() == null ? "none" : letter.origin())
        .build();
  }

  static String truncate(String reason) {
    String r = reason == null ? "unknown" : reason;
    return r.length() <= MAX_REASON ? r : r.substring(0, MAX_REASON);
  }
}
