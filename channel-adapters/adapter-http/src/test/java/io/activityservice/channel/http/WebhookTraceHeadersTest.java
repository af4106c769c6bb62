package io.activityservice.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundChannel;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A webhook receives the event's trace context twice over a real HTTP server: as the CloudEvents
 * extension in the body and as W3C {@code traceparent} / {@code tracestate} headers; a malformed
 * value is left out of the headers and the event is still delivered.
 */
class WebhookTraceHeadersTest {

  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  LoopbackHook hook;
  final Map<String, String[]> received = new ConcurrentHashMap<>();

  @BeforeEach
  void start() throws Exception {
    hook =
        new LoopbackHook(
            exchange -> {
              CloudEvent e = CloudEventJson.decode(exchange.getRequestBody().readAllBytes());
              received.put(
                  e.getId(),
                  new String[] {
                    exchange.getRequestHeaders().getFirst("traceparent"),
                    exchange.getRequestHeaders().getFirst("tracestate"),
                    String.valueOf(e.getExtension("traceparent"))
                  });
              exchange.sendResponseHeaders(204, -1);
              exchange.close();
            });
  }

  @AfterEach
  void stop() {
    hook.close();
  }

  static CloudEvent event(String id, String traceparent, String tracestate) {
    CloudEventBuilder b =
        CloudEventBuilder.v1().withId(id).withSource(URI.create("/t")).withType("com.example.t");
    if (traceparent != null) {
      b.withExtension("traceparent", traceparent);
    }
    if (tracestate != null) {
      b.withExtension("tracestate", tracestate);
    }
    return b.build();
  }

  @Test
  void theTraceContextTravelsAsW3cHeadersBesideTheExtension() throws Exception {
    OutboundChannel out = hook.adapter.openOutbound(hook.uri());
    out.send(event("good", TRACEPARENT, "vendor=abc")).get(10, TimeUnit.SECONDS);
    out.send(event("bad", "00-not\r\nInjected: yes", "x\r\ny")).get(10, TimeUnit.SECONDS);
    out.send(event("none", null, null)).get(10, TimeUnit.SECONDS);

    assertThat(received.get("good")).containsExactly(TRACEPARENT, "vendor=abc", TRACEPARENT);
    assertThat(received.get("bad")[0]).as("malformed: no header, still delivered").isNull();
    assertThat(received.get("bad")[1]).isNull();
    assertThat(received.get("none")[0]).isNull();
  }
}
