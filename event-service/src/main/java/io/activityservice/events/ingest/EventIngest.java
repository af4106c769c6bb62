package io.activityservice.events.ingest;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.routing.RoutingOutcome;
import io.activityservice.events.tracing.EventTracing;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The one way events enter the Event Service, whichever channel they came from: fill in {@code
 * time}, validate against the registry, then route. Validation is synchronous so that a bad event
 * is refused before anything about it is routed.
 */
public class EventIngest {

  private final EventRegistry registry;
  private final EventRouter router;
  private final Clock clock;
  private final int maxAttributeLength;
  private EventTracing tracing = EventTracing.NONE;

  /**
   * Names an extension may not have: the context attributes and the members of the structured JSON
   * view.
   */
  private static final java.util.Set<String> RESERVED =
      java.util.Set.of(
          "specversion",
          "id",
          "source",
          "type",
          "subject",
          "time",
          "dataschema",
          "datacontenttype",
          "data",
          "data_base64");

  /** Default length bound of context attributes and extension values. */
  public static final int DEFAULT_MAX_ATTRIBUTE_LENGTH = 1024;

  public EventIngest(EventRegistry registry, EventRouter router, Clock clock) {
    this(registry, router, clock, DEFAULT_MAX_ATTRIBUTE_LENGTH);
  }

  /**
   * @param maxAttributeLength most characters in any context attribute ({@code id}, {@code source},
   *     {@code type}, {@code subject}, {@code dataschema}, {@code datacontenttype}) or extension
   *     value: patterns (wildcards in particular) cost per character of the values they read, so
   *     this bounds what one event can cost the router whatever the subscriptions
   */
  public EventIngest(
      EventRegistry registry, EventRouter router, Clock clock, int maxAttributeLength) {
    if (maxAttributeLength < 64 || maxAttributeLength > 65_536) {
      throw new IllegalArgumentException(
          "activity.ingest.max-attribute-length must be between 64 and 65536 (was "
              + maxAttributeLength
              + "), e.g. 1024");
    }
    this.registry = registry;
    this.router = router;
    this.clock = clock;
    this.maxAttributeLength = maxAttributeLength;
  }

  /**
   * Traces ingest with {@code tracing} (set once, at start-up); {@link EventTracing#NONE} by
   * default.
   */
  public EventIngest tracing(EventTracing tracing) {
    this.tracing = tracing == null ? EventTracing.NONE : tracing;
    return this;
  }

  /** How ingest is traced; channels, the REST API and derived events start their spans with it. */
  public EventTracing tracing() {
    return tracing;
  }

  /**
   * Prepares an event received under {@code hop} (see {@link EventTracing#received}): stamps the
   * hop's trace context on an event that came without one, validates it (in an {@code ingest} step
   * span) and hands the hop on with the prepared event.
   *
   * @throws InvalidInputException naming the offending field (the step span records it)
   */
  public RoutableEvent prepare(CloudEvent event, EventTracing.Hop hop) {
    long start = System.nanoTime();
    if (!hop.recording()) {
      RoutableEvent routable = prepare(event); // its trace is Hop.NONE already: no write per event
      ingested(start);
      return routable;
    }
    EventTracing.Hop step = tracing.step(hop, "ingest");
    try {
      RoutableEvent routable = prepare(tracing.startingTrace(hop, event)).trace(hop);
      step.end(null);
      ingested(start);
      return routable;
    } catch (RuntimeException e) {
      step.end(e);
      throw e;
    }
  }

  /** The ingest hop's timer (beside the {@code ingest} span): accepted events only. */
  private void ingested(long startNanos) {
    if (router != null) {
      router.metrics().ingested(startNanos);
    }
  }

  /**
   * The transport-wait timer of an inbound channel ({@code null}: the REST API), resolved once per
   * channel; see {@link io.activityservice.events.tracing.HopLatency#waited}. {@code null} without
   * a router.
   */
  public Timer transportTimer(ChannelUri channel) {
    return router == null ? null : router.metrics().transport(channel);
  }

  /**
   * Ends the span of an event once routing settled it, with what became of its deliveries: the
   * {@code settle} of the event's trace.
   */
  public static void settled(EventTracing.Hop hop, RoutingOutcome outcome, Throwable error) {
    if (outcome != null && hop.recording()) {
      hop.attribute("activity.delivery.delivered", outcome.delivered());
      hop.attribute("activity.delivery.parked", outcome.parked());
      hop.attribute("activity.delivery.dead_lettered", outcome.deadLettered());
      if (outcome.duplicate()) {
        hop.note("duplicate");
      }
    }
    hop.end(error);
  }

  /**
   * Normalizes and validates one event.
   *
   * @throws InvalidInputException naming the offending field
   */
  public RoutableEvent prepare(CloudEvent event) {
    checkLengths(event);
    CloudEvent withTime = event.getTime() != null ? event : new TimedCloudEvent(event, now());
    String type = withTime.getType();
    // The data is parsed now if a schema or a pattern will read it, else only checked to be JSON
    // (and parsed later
    // if a detector, rule set or archive reads it).
    boolean readNow = registry.hasSchema(type) || (router != null && router.readsData());
    RoutableEvent routable = RoutableEvent.of(withTime, readNow);
    registry.validateData(type, routable::data, routable.dataIsJson());
    return routable;
  }

  /**
   * Now, in the clock's zone, without looking up zone rules (which allocates per call for a fixed
   * offset).
   */
  private OffsetDateTime now() {
    Instant instant = clock.instant();
    ZoneOffset offset =
        clock.getZone() instanceof ZoneOffset fixed
            ? fixed
            : clock.getZone().getRules().getOffset(instant);
    return OffsetDateTime.of(
        LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(), offset), offset);
  }

  /**
   * Attribute and extension lengths: a few length reads per event, no parse and no allocation
   * unless refused.
   */
  private void checkLengths(CloudEvent event) {
    check("id", event.getId());
    check("type", event.getType());
    check("subject", event.getSubject());
    check("datacontenttype", event.getDataContentType());
    if (event.getSource() != null) {
      check("source", event.getSource().toString());
    }
    if (event.getDataSchema() != null) {
      check("dataschema", event.getDataSchema().toString());
    }
    for (String name : event.getExtensionNames()) {
      if (RESERVED.contains(name)) {
        // The routed JSON view would show the extension in place of the attribute that was checked
        // (e.g. binary
        // mode's ce-datacontenttype header): what patterns see must be what ingest validated.
        throw new InvalidInputException(
            name,
            "is a CloudEvents attribute name and cannot be an extension; in binary"
                + " mode the data's content type is the Content-Type header");
      }
      Object value = event.getExtension(name);
      if (value instanceof CharSequence || value instanceof java.net.URI) {
        check(name, value.toString());
      } else if (value instanceof byte[] bytes && bytes.length > maxAttributeLength) {
        check(name, "x".repeat(maxAttributeLength + 1));
      }
    }
  }

  private void check(String attribute, String value) {
    if (value != null && value.length() > maxAttributeLength) {
      throw new InvalidInputException(
          attribute,
          "is "
              + value.length()
              + " characters long; context attributes and"
              + " extension values may have at most "
              + maxAttributeLength
              + " (activity.ingest.max-attribute-length)");
    }
  }

  /**
   * Validates a whole batch before any of it is routed; errors name the entry, e.g. {@code
   * [2].data.value}.
   */
  public List<RoutableEvent> prepareAll(List<CloudEvent> events) {
    List<RoutableEvent> prepared = new ArrayList<>(events.size());
    List<FieldError> errors = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      try {
        prepared.add(prepare(events.get(i)));
      } catch (InvalidInputException e) {
        for (FieldError fe : e.errors()) {
          errors.add(new FieldError("[" + i + "]." + fe.field(), fe.reason()));
        }
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidInputException(errors);
    }
    return prepared;
  }

  /**
   * Validates a whole batch received from {@code from} before any of it is routed, each event under
   * a span of its own (see {@link #prepare(CloudEvent, EventTracing.Hop)}); errors name the entry.
   * {@link #route(RoutableEvent, EventRouter.Callback)} ends the spans.
   */
  public List<RoutableEvent> prepareAll(List<CloudEvent> events, EventTracing.Destination from) {
    List<RoutableEvent> prepared = new ArrayList<>(events.size());
    List<FieldError> errors = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      EventTracing.Hop hop = tracing.received(events.get(i), from);
      try {
        prepared.add(prepare(events.get(i), hop));
      } catch (InvalidInputException e) {
        hop.end(e);
        for (FieldError fe : e.errors()) {
          errors.add(new FieldError("[" + i + "]." + fe.field(), fe.reason()));
        }
      }
    }
    if (!errors.isEmpty()) {
      for (RoutableEvent e : prepared) {
        e.trace().end(null); // nothing of the batch is routed
      }
      throw new InvalidInputException(errors);
    }
    return prepared;
  }

  /**
   * The counter of events received on a kind of inbound channel (its scheme, or {@code http}):
   * resolve once, increment per event; see {@link EventRouter#receivedOn}.
   */
  public Counter receivedOn(String channel) {
    return router.receivedOn(channel);
  }

  /** Routes a prepared event; see {@link EventRouter#route(RoutableEvent)}. */
  public CompletableFuture<RoutingOutcome> route(RoutableEvent event) {
    if (!event.trace().recording()) {
      return router.route(event);
    }
    CompletableFuture<RoutingOutcome> outcome = new CompletableFuture<>();
    route(
        event,
        (o, error) -> {
          if (error != null) {
            outcome.completeExceptionally(error);
          } else {
            outcome.complete(o);
          }
        });
    return outcome;
  }

  /**
   * Routes a prepared event and tells {@code done}, ending the event's span (see {@link #settled})
   * first; see {@link EventRouter#route(RoutableEvent, EventRouter.Callback)}.
   */
  public void route(RoutableEvent event, EventRouter.Callback done) {
    EventTracing.Hop hop = event.trace();
    if (hop.recording()) {
      router.route(
          event,
          (outcome, error) -> {
            settled(hop, outcome, error);
            done.routed(outcome, error);
          });
    } else {
      router.route(event, done);
    }
  }

  /** Prepares and routes; validation errors fail the returned future. */
  public CompletableFuture<RoutingOutcome> publish(CloudEvent event) {
    try {
      return route(prepare(event));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
