package io.activityservice.app.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.WebhookReceiver;
import io.activityservice.app.support.ZipkinServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Tracing end to end into a real trace backend (issue 23): a Zipkin server, started by the test
 * from its executable jar on Maven Central (the build copies it to {@code target/zipkin}); the
 * service builds its OpenTelemetry SDK from the standard {@code otel.*} settings alone (exporter
 * {@code zipkin}, endpoint, sampler), and the test finds the trace through Zipkin's HTTP API. When
 * the jar is absent (the build could not fetch it), the test steps aside with the reason ({@link
 * ZipkinServer}).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "otel.traces.exporter=zipkin",
      "otel.traces.sampler=parentbased_traceidratio",
      "otel.traces.sampler.arg=1.0",
      "otel.bsp.schedule.delay=200"
    })
class TracingZipkinIT {

  static final ObjectMapper MAPPER = new ObjectMapper();
  static final WebhookReceiver webhook = new WebhookReceiver();
  static ZipkinServer zipkin;

  @BeforeAll
  static void startZipkin() throws Exception {
    zipkin = ZipkinServer.start();
  }

  @AfterAll
  static void stopZipkin() {
    webhook.close();
    if (zipkin != null) {
      zipkin.close();
    }
  }

  @DynamicPropertySource
  static void zipkinEndpoint(DynamicPropertyRegistry registry) {
    registry.add("otel.exporter.zipkin.endpoint", () -> zipkin.spansEndpoint());
  }

  @LocalServerPort int port;

  @Test
  void theTraceOfAnEventIsFoundInZipkinFromProducerToTheWebhookDelivery() throws Exception {
    Api api = new Api(port);
    String leg = UUID.randomUUID().toString().substring(0, 8);
    String type = "com.example.zipkin" + leg;
    String path = "/zipkin-" + leg;
    assertThat(
            api.postJson(
                    "/api/v1/subscriptions",
                    """
                    {"name": "zipkin %s", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                        .formatted(leg, type, webhook.url(path)))
                .status())
        .isEqualTo(201);
    String traceId = UUID.randomUUID().toString().replace("-", "");
    String producerSpan = traceId.substring(0, 16);
    assertThat(
            api.publish(
                    """
                    {"specversion":"1.0","id":"z-%s","source":"/producer","type":"%s",
                     "traceparent":"00-%s-%s-01"}"""
                        .formatted(leg, type, traceId, producerSpan))
                .status())
        .isEqualTo(202);
    await().atMost(Duration.ofSeconds(30)).until(() -> !webhook.calls(path).isEmpty());
    String received =
        MAPPER.readTree(webhook.calls(path).get(0).body()).get("traceparent").asText();
    assertThat(received).startsWith("00-" + traceId + "-");

    JsonNode trace =
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(500))
            .until(
                () -> {
                  HttpResponse<String> r = zipkin.get("/api/v2/trace/" + traceId);
                  return r.statusCode() == 200 ? MAPPER.readTree(r.body()) : null;
                },
                t ->
                    t != null
                        && names(t).containsAll(List.of("process /api/v1/events"))
                        && sends(t));
    JsonNode process = byName(trace, "process /api/v1/events");
    assertThat(process.get("kind").asText()).isEqualTo("CONSUMER");
    assertThat(process.get("parentId").asText()).isEqualTo(producerSpan);
    assertThat(process.get("localEndpoint").get("serviceName").asText())
        .isEqualTo("activity-service");
    assertThat(process.get("tags").get("cloudevents.event_id").asText()).isEqualTo("z-" + leg);
    JsonNode send = null;
    for (JsonNode span : trace) {
      if (span.get("name").asText().startsWith("send ")) {
        send = span;
      }
    }
    assertThat(send.get("kind").asText()).isEqualTo("PRODUCER");
    assertThat(send.get("parentId").asText()).isEqualTo(process.get("id").asText());
    // The webhook received the delivery span's context: the trace goes on in the consumer.
    assertThat(received.split("-")[2]).isEqualTo(send.get("id").asText());
  }

  private static boolean sends(JsonNode trace) {
    return names(trace).stream().anyMatch(n -> n.startsWith("send "));
  }

  private static List<String> names(JsonNode trace) {
    List<String> names = new ArrayList<>();
    trace.forEach(s -> names.add(s.get("name").asText()));
    return names;
  }

  private static JsonNode byName(JsonNode trace, String name) {
    for (JsonNode span : trace) {
      if (span.get("name").asText().equals(name)) {
        return span;
      }
    }
    throw new AssertionError("no span " + name + " in " + trace);
  }
}
