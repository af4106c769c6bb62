package io.activityservice.events.ingest;

import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.Redaction;
import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.tracing.EventTracing;
import io.activityservice.events.tracing.HopLatency;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds an inbound channel into ingest. The message is acknowledged only after routing settled; a
 * routing failure (overload, dead-letter channel down) is a nack, so the transport redelivers. An
 * event that can never be valid is dead-lettered with the reason and then acknowledged, so it does
 * not block the channel.
 */
final class RoutingInboundHandler implements InboundHandler {

  private static final Logger log = LoggerFactory.getLogger(RoutingInboundHandler.class);

  private final ChannelUri channel;
  private final EventIngest ingest;
  private final DeadLetters deadLetters;
  private final EventTracing tracing;
  private final EventTracing.Destination from;
  private final Counter received;

  /** Time in the inbound transport, resolved once for this channel (null without a router). */
  private final Timer transport;

  RoutingInboundHandler(ChannelUri channel, EventIngest ingest, DeadLetters deadLetters) {
    this.channel = channel;
    this.received = ingest.receivedOn(channel.scheme());
    this.ingest = ingest;
    this.deadLetters = deadLetters;
    this.tracing = ingest.tracing();
    this.from = tracing.inbound(channel);
    this.transport = ingest.transportTimer(channel);
  }

  @Override
  public void onEvent(CloudEvent event, Acknowledgement ack) {
    if (transport != null) {
      HopLatency.waited(transport, event, ack.sentAtMillis(), System.currentTimeMillis());
    }
    EventTracing.Hop hop = tracing.received(event, from);
    received.increment();
    try {
      ingest.route(
          ingest.prepare(event, hop),
          (outcome, error) -> {
            if (error == null) {
              ack.ack();
            } else {
              ack.nack(error);
            }
          });
    } catch (InvalidInputException invalid) {
      hop.note("dead-lettered: invalid");
      hop.end(invalid);
      log.warn(
          "invalid event {} on {}: {}",
          LogSafe.text(event.getId()),
          LogSafe.text(Redaction.uri(channel)),
          LogSafe.text(invalid.getMessage(), 1024));
      deadLetters
          .send(
              new DeadLetters.DeadLetter(
                  event,
                  null,
                  "inbound:" + Redaction.uri(channel.toString()),
                  1,
                  "invalid: " + invalid.getMessage()),
              null)
          .whenComplete(
              (ok, error) -> {
                if (error == null) {
                  ack.ack();
                } else {
                  ack.nack(error);
                }
              });
    } catch (RuntimeException unexpected) {
      hop.end(unexpected);
      log.error(
          "ingest of event {} on {} failed",
          LogSafe.text(event.getId()),
          LogSafe.text(Redaction.uri(channel)),
          unexpected);
      ack.nack(unexpected);
    }
  }
}
