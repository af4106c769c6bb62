package io.activityservice.events.tracing;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundEvent;
import io.cloudevents.CloudEvent;
import java.util.List;

/**
 * The one seam between the event path and tracing: ingest, the router, durable delivery, retries,
 * derived events and replays call it around their work, and never a tracing library directly.
 * {@link #NONE} traces nothing and costs nothing; {@link OpenTelemetryTracing} starts OpenTelemetry
 * spans.
 *
 * <p>Trace context travels with the event as the CloudEvents distributed-tracing extension ({@value
 * #TRACEPARENT}, {@value #TRACESTATE}: W3C Trace Context), which every binding already carries as
 * an extension attribute (JMS property {@code cloudEvents_traceparent}, Kafka header {@code
 * ce_traceparent}, the structured JSON of SQS bodies, webhooks, parked deliveries, dead letters and
 * the archive). A delivery whose span is recording hands its target the event with the delivery
 * span's context, so the consumer continues the trace; otherwise the event goes out as it came.
 *
 * <p>Cheap when nothing is sampled: a hop that is not recording is {@link Hop#NONE} from then on
 * (its deliveries start no span), and attributes are only computed for recording spans.
 */
public interface EventTracing {

  /** The W3C {@code traceparent}, as a CloudEvents extension. */
  String TRACEPARENT = "traceparent";

  /** The W3C {@code tracestate}, as a CloudEvents extension. */
  String TRACESTATE = "tracestate";

  /** Traces nothing: every hop is {@link Hop#NONE} and events pass through unchanged. */
  EventTracing NONE = new NoTracing();

  /** A span in progress (or {@link #NONE}). Thread-safe; {@link #end} counts once. */
  interface Hop {

    /** Nothing is recorded. */
    Hop NONE = new Hop() {};

    /** Whether the span records (was sampled). */
    default boolean recording() {
      return false;
    }

    /** Records a named moment, e.g. {@code parked}. */
    default void note(String what) {}

    /** Sets an attribute (on a recording span only). */
    default void attribute(String key, String value) {}

    /** Sets an attribute (on a recording span only). */
    default void attribute(String key, long value) {}

    /** Ends the span; {@code error} non-null marks it failed. */
    default void end(Throwable error) {}
  }

  /**
   * Where events come from or go to: the span name and the constant attributes of one channel,
   * built once per channel or target.
   */
  interface Destination {}

  /** An inbound channel ({@code null}: the REST API). */
  Destination inbound(ChannelUri channel);

  /** A delivery target. */
  Destination outbound(ChannelUri target);

  /**
   * The consumer span of an event received from {@code from}: a child of the event's {@value
   * #TRACEPARENT}, or the root of a new trace.
   */
  Hop received(CloudEvent event, Destination from);

  /**
   * The span of an event derived by a detector or a rule ({@code origin}): a child of the last
   * cause's span, linked to every cause's.
   *
   * @param causes the {@value #TRACEPARENT} of each event it was derived from (nulls ignored)
   */
  Hop derived(CloudEvent event, String origin, List<String> causes);

  /**
   * The span of an archived event replayed by {@code replay}: a new trace, linked to the original.
   */
  Hop replayed(CloudEvent event, String replay);

  /**
   * An internal step of a hop (e.g. {@code ingest}, {@code route}); {@link Hop#NONE} if not
   * recording.
   */
  Hop step(Hop parent, String name);

  /**
   * The event as the rest of the path keeps it (archive, parked deliveries, detectors): with the
   * hop's context as its {@value #TRACEPARENT} when it had none and the hop records, so the trace
   * the service started goes on from there; else unchanged (the producer's trace stays the starting
   * trace).
   */
  CloudEvent startingTrace(Hop hop, CloudEvent event);

  /** Records which subscriptions an event matched (recording hops only). */
  void routed(Hop hop, int matched, List<String> subscriptionIds);

  /**
   * The producer span of one delivery attempt at {@code to}: a child of {@code parent}; with {@code
   * parent} {@code null} (a retry from the store, a dead-letter redrive) a child of the event's
   * {@value #TRACEPARENT}. {@link Hop#NONE} when {@code parent} is not recording.
   *
   * @param attempt 1 for the first attempt
   */
  Hop deliver(Hop parent, CloudEvent event, Destination to, String subscriptionId, int attempt);

  /**
   * What a delivery sends: {@code event} with the delivery span's context as its {@value
   * #TRACEPARENT} and {@value #TRACESTATE} when the span records (the consumer continues the
   * trace), else {@code event} itself.
   */
  OutboundEvent continued(Hop delivery, OutboundEvent event);
}
