package io.activityservice.app.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.events.channel.ChannelRegistry;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * {@code GET /api/v1/capacity} after real traffic: events in on a JMS queue (the service's embedded
 * ActiveMQ, over TCP) and over the REST API, delivered to a JMS queue a real consumer drains; then
 * the model's numbers agree with the traffic sent (rates per path, CPU per event, finite headroom,
 * utilisation law), and the endpoint needs its role.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"activity.capacity.window=5m", "activity.capacity.warning-share=0.1"})
class CapacityApiTest {

  static final int JMS_EVENTS = 200;
  static final int REST_EVENTS = 100;

  @LocalServerPort int port;
  @Autowired ChannelRegistry channels;

  @Test
  void pathsShowTheTrafficSentWithDemandAndFiniteHeadroom() throws Exception {
    String leg = UUID.randomUUID().toString().substring(0, 8);
    String type = "com.example.capacity." + leg;
    Api api = new Api(port);
    ChannelUri target = ChannelUri.parse("jms:queue:capacity.out-" + leg);
    ChannelUri in = ChannelUri.parse("jms:queue:capacity.in-" + leg);
    Set<String> received = ConcurrentHashMap.newKeySet();
    InboundChannel consumer =
        channels
            .adapter(target)
            .openInbound(
                target,
                new InboundSettings(null, null, Map.of()),
                (event, ack) -> {
                  received.add(event.getId());
                  ack.ack();
                });
    try {
      assertThat(
              api.postJson(
                      "/api/v1/subscriptions",
                      """
          {"name": "capacity %s", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                          .formatted(leg, type, target))
                  .status())
          .isEqualTo(201);
      assertThat(api.postJson("/api/v1/channels", "{\"uri\": \"" + in + "\"}").status())
          .isEqualTo(201);
      try (OutboundChannel producer = channels.adapter(in).openOutbound(in)) {
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (int i = 0; i < JMS_EVENTS; i++) {
          sends.add(producer.send(event(leg + "-j" + i, type)));
        }
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      }
      for (int i = 0; i < REST_EVENTS; i++) {
        assertThat(
                api.publish(
                        """
            {"specversion":"1.0","id":"%s-r%d","source":"/capacity","type":"%s","data":{"n":%d}}"""
                            .formatted(leg, i, type, i))
                    .status())
            .isEqualTo(202);
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> received.size() >= JMS_EVENTS + REST_EVENTS);

      // The sampler counts every second: wait until the window holds all of it.
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                JsonNode c = capacity(api);
                JsonNode jms = path(c, "jms", "jms");
                assertThat(jms).as(c.toString()).isNotNull();
                // This test's JMS events are the only ones on a jms inbound channel in this
                // context.
                assertThat(jms.get("eventsPerSecond").asDouble() * c.get("seconds").asDouble())
                    .isCloseTo(JMS_EVENTS, org.assertj.core.api.Assertions.within(1.0));
              });
      JsonNode c = capacity(api);
      JsonNode jms = path(c, "jms", "jms");
      JsonNode http = path(c, "http", "jms");
      assertThat(http).as(c.toString()).isNotNull();
      assertThat(http.get("eventsPerSecond").asDouble()).isPositive();
      assertThat(c.get("cpuUtilisation").asDouble()).isGreaterThan(0).isLessThanOrEqualTo(1);
      assertThat(c.get("cores").asInt()).isEqualTo(Runtime.getRuntime().availableProcessors());
      for (JsonNode p : List.of(jms, http)) {
        assertThat(p.get("cpuMicrosPerEvent").isNumber()).as(p.toString()).isTrue();
        assertThat(p.get("cpuMicrosPerEvent").asDouble()).isPositive();
        assertThat(p.get("headroomEventsPerSecond").isNumber()).as(p.toString()).isTrue();
        assertThat(p.get("headroomEventsPerSecond").asDouble())
            .isGreaterThanOrEqualTo(0)
            .isLessThan(Double.MAX_VALUE);
        assertThat(p.get("bottleneck").asText()).isIn("service-cpu", "host-cpu");
      }
      // The utilisation law: the paths' X·D add up to the process's CPU time over the window.
      double cpuSeconds = 0;
      double deliveries = 0;
      for (JsonNode p : c.get("paths")) {
        cpuSeconds += p.get("eventsPerSecond").asDouble() * p.get("cpuMicrosPerEvent").asDouble();
        deliveries += p.get("eventsPerSecond").asDouble();
      }
      assertThat(deliveries)
          .isCloseTo(
              c.get("deliveriesPerSecond").asDouble(),
              org.assertj.core.api.Assertions.within(1e-6));
      assertThat(cpuSeconds / 1e6)
          .isCloseTo(
              c.get("cpuUtilisation").asDouble() * c.get("cores").asInt(),
              org.assertj.core.api.Assertions.within(1e-6));
      // The headroom at the current mix: every path grows by the same factor up to the target.
      // (On a busy host other processes may already hold the target: then nothing is left.)
      double share = c.get("headroomShare").asDouble();
      double max = c.get("maxEventsPerSecond").asDouble();
      double now = c.get("eventsPerSecond").asDouble();
      if (share > 0) {
        assertThat(max * (1 - share)).isCloseTo(now, org.assertj.core.api.Assertions.within(1e-6));
        assertThat(jms.get("headroomEventsPerSecond").asDouble())
            .isCloseTo(
                jms.get("eventsPerSecond").asDouble() * share / (1 - share),
                org.assertj.core.api.Assertions.within(1e-6));
      } else {
        assertThat(max).isLessThanOrEqualTo(now);
        assertThat(jms.get("headroomEventsPerSecond").asDouble()).isZero();
      }
      assertThat(c.get("warning").asBoolean()).isEqualTo(share < 0.1);
      // Other processes fitted against the rate: X_max = (U_max·C − a) / (D + b).
      if (c.get("hostCpuUtilisation").isNumber()) {
        double a = c.get("otherCpuCores").asDouble();
        double b = c.get("otherCpuMicrosPerEvent").asDouble();
        assertThat(a).isGreaterThanOrEqualTo(0);
        assertThat(b).isGreaterThanOrEqualTo(0);
        assertThat(c.get("otherFitSamples").asInt()).isGreaterThanOrEqualTo(0);
        double expected =
            Math.max(0, c.get("targetUtilisation").asDouble() * c.get("cores").asInt() - a)
                / ((c.get("cpuMicrosPerEvent").asDouble() + b) / 1e6);
        assertThat(max).isCloseTo(expected, org.assertj.core.api.Assertions.withinPercentage(1e-6));
      }
    } finally {
      consumer.close();
    }
  }

  @Test
  void capacityNeedsTheMetricsOrAdminRole() {
    Api api = new Api(port);
    String publisher =
        api.createKey("cap-pub-" + UUID.randomUUID(), List.of("publisher"), List.of("com.*"));
    String metrics =
        api.createKey("cap-metrics-" + UUID.randomUUID(), List.of("metrics"), List.of());
    assertThat(api.anonymous().get("/api/v1/capacity").status()).isEqualTo(401);
    assertThat(api.withKey(publisher).get("/api/v1/capacity").status()).isEqualTo(403);
    Response ok = api.withKey(metrics).get("/api/v1/capacity");
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.json().has("paths")).isTrue();
    assertThat(api.get("/v3/api-docs").body())
        .contains("/api/v1/capacity")
        .contains("headroomEventsPerSecond")
        .contains("otherCpuMicrosPerEvent")
        .contains("otherFitSamples");
  }

  private static JsonNode capacity(Api api) {
    Response r = api.get("/api/v1/capacity");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return r.json();
  }

  private static JsonNode path(JsonNode capacity, String inbound, String outbound) {
    for (JsonNode p : capacity.get("paths")) {
      if (p.get("inbound").asText().equals(inbound)
          && p.get("outbound").asText().equals(outbound)) {
        return p;
      }
    }
    return null;
  }

  private static CloudEvent event(String id, String type) {
    return CloudEventBuilder.v1()
        .withId(id)
        .withSource(URI.create("/capacity"))
        .withType(type)
        .withDataContentType("application/json")
        .withData("{\"n\":1}".getBytes(StandardCharsets.UTF_8))
        .build();
  }
}
