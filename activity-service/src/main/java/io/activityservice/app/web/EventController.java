package io.activityservice.app.web;

import io.activityservice.app.config.ActivityProperties;
import io.activityservice.app.security.Caller;
import io.activityservice.app.security.Callers;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.support.Futures;
import io.activityservice.events.ingest.CloudEventParser;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.OverloadedException;
import io.activityservice.events.tracing.EventTracing;
import io.activityservice.events.tracing.HopLatency;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.HandlerExceptionResolver;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /api/v1/events}: publish CloudEvents over HTTP in structured, batch or binary mode.
 *
 * <p>Answers 202 only once the service has taken responsibility for every event of the request:
 * each matching delivery was accepted by its target, or parked in the durable retry store (after at
 * most {@code activity.routing.park-after}). A SIGKILL right after the answer loses nothing. The
 * request thread is released meanwhile (asynchronous answer). Publishers may publish only the event
 * types of their scope.
 */
@RestController
@RequestMapping("/api/v1/events")
class EventController {

  /** What the answer lists per accepted event. */
  record Accepted(String id, String source, String type) {}

  /**
   * @param accepted events accepted
   * @param events their ids
   * @param delivered deliveries the targets accepted on the first attempt
   * @param parked deliveries parked for retries from the durable store
   */
  record PublishResponse(int accepted, List<Accepted> events, int delivered, int parked) {}

  private final EventIngest ingest;
  private final long maxBody;
  private final JsonMapper json;
  private final HandlerExceptionResolver problems;
  private final long answerTimeoutMillis;
  private final EventTracing.Destination restInbound;
  private final Counter received;

  /** Producer's send time (the event's time) to receipt on the API; null without a router. */
  private final Timer restTransport;

  EventController(
      EventIngest ingest,
      ActivityProperties props,
      JsonMapper json,
      @Qualifier("handlerExceptionResolver") HandlerExceptionResolver problems,
      @Value("${spring.mvc.async.request-timeout:60s}") Duration answerTimeout) {
    this.ingest = ingest;
    this.maxBody = props.maxBodySize().toBytes();
    this.json = json;
    this.problems = problems;
    this.answerTimeoutMillis = answerTimeout.toMillis();
    this.restInbound = ingest.tracing().inbound(null);
    this.received = ingest.receivedOn("http");
    this.restTransport = ingest.transportTimer(null);
  }

  /**
   * Answers 202 once every event is durable ({@link PublishAnswer}): on the request thread when
   * every target accepted at once, else through the servlet's async context, written by the thread
   * that settles the last event — without a second dispatch through the filter chain and the MVC
   * machinery, which cost about as much CPU as the request itself. Errors found before routing
   * (400, 403, 413) are thrown as before; a refusal after routing started (503) is rendered by the
   * same problem handler.
   */
  @PostMapping
  // No @ResponseStatus: the answer may be written by another thread while this method returns; this
  // documents it.
  @ApiResponse(
      responseCode = "202",
      description = "Accepted: every event is durable (delivered, or parked for retries)",
      content =
          @Content(
              mediaType = MediaType.APPLICATION_JSON_VALUE,
              schema = @Schema(implementation = PublishResponse.class)))
  void publish(HttpServletRequest request, HttpServletResponse response) throws IOException {
    byte[] body = readBounded(request.getInputStream());
    String contentType = request.getContentType();
    String base = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
    List<RoutableEvent> prepared;
    if (base.startsWith(CloudEventJson.BATCH_CONTENT_TYPE)) {
      List<CloudEvent> batch = CloudEventParser.batch(body);
      for (int i = 0; i < batch.size(); i++) {
        requirePublishable(batch.get(i), "[" + i + "].type");
      }
      String traceparent = request.getHeader(EventTracing.TRACEPARENT);
      if (traceparent != null) {
        batch = new ArrayList<>(batch);
        for (int i = 0; i < batch.size(); i++) {
          batch.set(i, withTraceContext(batch.get(i), request));
        }
      }
      if (restTransport != null) {
        long now = System.currentTimeMillis();
        for (CloudEvent e : batch) {
          HopLatency.waited(restTransport, e, now);
        }
      }
      prepared = ingest.prepareAll(batch, restInbound);
    } else if (base.startsWith(CloudEventJson.CONTENT_TYPE)) {
      CloudEvent event = withTraceContext(CloudEventParser.structured(body), request);
      requirePublishable(event, "type");
      prepared = List.of(prepareTraced(event));
    } else if (request.getHeader("ce-specversion") != null || request.getHeader("ce-id") != null) {
      CloudEvent event =
          withTraceContext(CloudEventParser.binary(ceHeaders(request), contentType, body), request);
      requirePublishable(event, "ce-type");
      prepared = List.of(prepareTraced(event));
    } else {
      throw new InvalidInputException(
          "Content-Type",
          "send application/cloudevents+json (structured), "
              + "application/cloudevents-batch+json (batch), or binary mode with ce-specversion, ce-id, ce-source "
              + "and ce-type headers");
    }
    received.increment(prepared.size());
    PublishAnswer answer = new PublishAnswer(prepared.size(), json, problems, answerTimeoutMillis);
    for (int i = 0; i < prepared.size(); i++) {
      ingest.route(prepared.get(i), answer.event(i));
      Throwable refusedNow = answer.refusedAt(i);
      if (refusedNow != null) {
        // Fail fast (e.g. 503 at the in-flight bound) instead of routing the rest of a batch.
        for (int rest = i + 1; rest < prepared.size(); rest++) {
          prepared.get(rest).trace().end(refusedNow); // never routed: end their spans here
        }
        throw refused(refusedNow, i, prepared.size());
      }
    }
    List<Accepted> accepted = new ArrayList<>(prepared.size());
    for (RoutableEvent e : prepared) {
      CloudEvent ce = e.event();
      accepted.add(new Accepted(ce.getId(), ce.getSource().toString(), ce.getType()));
    }
    answer.routedAll(accepted, request, response);
  }

  /** Prepares one event under its receive span (ended by routing, or here if it is refused). */
  private RoutableEvent prepareTraced(CloudEvent event) {
    if (restTransport != null) {
      HopLatency.waited(restTransport, event, System.currentTimeMillis());
    }
    EventTracing.Hop hop = ingest.tracing().received(event, restInbound);
    try {
      return ingest.prepare(event, hop);
    } catch (RuntimeException e) {
      hop.end(e);
      throw e;
    }
  }

  /**
   * The event with the request's W3C {@code traceparent} / {@code tracestate} headers as its
   * distributed-tracing extension when it has none: a producer that traces its HTTP calls but not
   * its events still starts the event's trace. Only a {@code traceparent} of W3C's shape (55
   * characters) is taken; anything else is ignored, as a tracing header should be.
   */
  static CloudEvent withTraceContext(CloudEvent event, HttpServletRequest request) {
    String traceparent = request.getHeader(EventTracing.TRACEPARENT);
    if (traceparent == null
        || traceparent.length() != 55
        || event.getExtension(EventTracing.TRACEPARENT) != null) {
      return event;
    }
    CloudEventBuilder copy =
        CloudEventBuilder.from(event).withExtension(EventTracing.TRACEPARENT, traceparent);
    String tracestate = request.getHeader(EventTracing.TRACESTATE);
    if (tracestate != null && !tracestate.isBlank() && tracestate.length() <= 512) {
      copy.withExtension(EventTracing.TRACESTATE, tracestate);
    }
    return copy.build();
  }

  /**
   * Refuses (403) an event whose type is outside the caller's scope; checked for a whole batch
   * before anything is validated or routed, so a batch with one forbidden type routes nothing.
   */
  private static void requirePublishable(CloudEvent event, String field) {
    Caller caller = Callers.current();
    if (!caller.scope().allows(event.getType())) {
      throw new ForbiddenException(
          field,
          "your "
              + caller.credential()
              + " may publish only event types "
              + caller.scope()
              + ", not "
              + event.getType()
              + "; nothing of this request was published");
    }
  }

  /**
   * The answer when routing refused an event: 503 (the client retries; events of the request that
   * were delivered meanwhile are recognised as duplicates within the dedup window).
   */
  static RuntimeException refused(Throwable error, int routed, int total) {
    Throwable cause = Futures.unwrap(error);
    if (cause instanceof OverloadedException overloaded) {
      return total == 1
          ? overloaded
          : new OverloadedException(
              "accepted "
                  + routed
                  + " of "
                  + total
                  + " events before reaching the in-flight bound; retry the request later");
    }
    return new OverloadedException(
        "the events could not be taken over durably ("
            + cause.getClass().getSimpleName()
            + "); retry the request later");
  }

  private byte[] readBounded(InputStream in) throws IOException {
    byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBody + 1));
    if (bytes.length > maxBody) {
      throw new PayloadTooLargeException(maxBody);
    }
    return bytes;
  }

  private static Map<String, String> ceHeaders(HttpServletRequest request) {
    Map<String, String> headers = new HashMap<>();
    Enumeration<String> names = request.getHeaderNames();
    while (names.hasMoreElements()) {
      String name = names.nextElement();
      String lower = name.toLowerCase(Locale.ROOT);
      if (lower.startsWith("ce-")) {
        headers.put(lower, request.getHeader(name));
      }
    }
    return headers;
  }
}
