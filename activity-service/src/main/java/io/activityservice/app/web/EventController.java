package io.activityservice.app.web;

import io.activityservice.app.config.ActivityProperties;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.events.ingest.CloudEventParser;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.OverloadedException;
import io.activityservice.events.routing.RoutableEvent;
import io.activityservice.events.routing.RoutingOutcome;
import io.cloudevents.CloudEvent;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/v1/events}: publish CloudEvents over HTTP in structured, batch or binary mode.
 * Answers 202 once every event of the request is validated and handed to routing.
 */
@RestController
@RequestMapping("/api/v1/events")
class EventController {

  /** What the answer lists per accepted event. */
  record Accepted(String id, String source, String type) {
  }

  record PublishResponse(int accepted, List<Accepted> events) {
  }

  private final EventIngest ingest;
  private final long maxBody;

  EventController(EventIngest ingest, ActivityProperties props) {
    this.ingest = ingest;
    this.maxBody = props.maxBodySize().toBytes();
  }

  @PostMapping
  ResponseEntity<PublishResponse> publish(HttpServletRequest request) throws IOException {
    byte[] body = readBounded(request.getInputStream());
    String contentType = request.getContentType();
    String base = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
    List<RoutableEvent> prepared;
    if (base.startsWith(CloudEventJson.BATCH_CONTENT_TYPE)) {
      prepared = ingest.prepareAll(CloudEventParser.batch(body));
    } else if (base.startsWith(CloudEventJson.CONTENT_TYPE)) {
      prepared = List.of(ingest.prepare(CloudEventParser.structured(body)));
    } else if (request.getHeader("ce-specversion") != null || request.getHeader("ce-id") != null) {
      prepared = List.of(ingest.prepare(CloudEventParser.binary(ceHeaders(request), contentType, body)));
    } else {
      throw new InvalidInputException("Content-Type", "send application/cloudevents+json (structured), "
          + "application/cloudevents-batch+json (batch), or binary mode with ce-specversion, ce-id, ce-source "
          + "and ce-type headers");
    }
    List<Accepted> accepted = new ArrayList<>(prepared.size());
    for (RoutableEvent e : prepared) {
      CompletableFuture<RoutingOutcome> routing = ingest.route(e);
      if (routing.isCompletedExceptionally() && isOverload(routing)) {
        throw new OverloadedException("accepted " + accepted.size() + " of " + prepared.size()
            + " events before reaching the in-flight bound; retry the rest later");
      }
      CloudEvent ce = e.event();
      accepted.add(new Accepted(ce.getId(), ce.getSource().toString(), ce.getType()));
    }
    return ResponseEntity.status(HttpStatus.ACCEPTED).body(new PublishResponse(accepted.size(), accepted));
  }

  private static boolean isOverload(CompletableFuture<RoutingOutcome> f) {
    return f.handle((ok, err) -> err instanceof OverloadedException
        || (err != null && err.getCause() instanceof OverloadedException)).join();
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
