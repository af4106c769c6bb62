package io.activityservice.app.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.SlowFailingWebhook;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.sqs.LocalStackSqs;
import io.activityservice.events.channel.ChannelRegistry;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The delivery issue's scenario, as a user would set it up: one inbound JMS topic, a healthy
 * subscription delivering to an SQS queue (LocalStack), and a webhook that answers 503 after 5
 * seconds. 2,000 events reach the healthy queue about as fast beside the failing webhook as alone;
 * the webhook's deliveries are parked, retried from the durable store and dead-lettered after
 * {@code maxAttempts}, each exactly once, with the reason.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "activity.channels.sqs.embedded.enabled=false",
      "activity.channels.sqs.max-batch-bytes=262144",
      "activity.routing.park-after=1s",
      // 2,000 retries of 5 s each: let them all run at once so the test ends in reasonable time.
      "activity.delivery.max-concurrent-attempts=4000",
      "activity.delivery.max-attempts-per-subscription=4000",
      "activity.delivery.poll-interval=100ms",
      // The default per-host bound (64 requests in flight) would stretch 6,000 attempts of 5 s to
      // over 7 minutes;
      // 400 makes it about 75 s while keeping the failing host's connections (all on this 2-core
      // machine) bounded.
      "activity.channels.http.max-concurrency-per-host=400"
    })
class DeliveryIsolationTest {

  static final int EVENTS = 2000;
  static final int MAX_ATTEMPTS = 3;

  @DynamicPropertySource
  static void sqs(DynamicPropertyRegistry registry) {
    URI endpoint = LocalStackSqs.endpoint();
    registry.add("activity.channels.sqs.endpoint", endpoint::toString);
    registry.add("activity.channels.sqs.region", () -> "us-east-1");
    registry.add("activity.channels.sqs.access-key", () -> "test");
    registry.add("activity.channels.sqs.secret-key", () -> "test");
    registry.add("activity.channels.sqs.wait-time", () -> "1s");
  }

  @LocalServerPort int port;
  @Autowired ChannelRegistry channels;

  /** Events received on a channel, per id. */
  private static final class Received {
    final Map<String, AtomicInteger> byId = new ConcurrentHashMap<>();
    final AtomicLong lastAt = new AtomicLong();
    final List<CloudEvent> events = java.util.Collections.synchronizedList(new ArrayList<>());

    void add(CloudEvent e) {
      byId.computeIfAbsent(e.getId(), k -> new AtomicInteger()).incrementAndGet();
      events.add(e);
      lastAt.set(System.nanoTime());
    }

    long duplicates() {
      return byId.values().stream().filter(n -> n.get() > 1).count();
    }
  }

  @Test
  void aFailingWebhookCostsAHealthySubscriptionNothing() throws Exception {
    String leg = UUID.randomUUID().toString().substring(0, 8);
    Api api = new Api(port);
    ChannelUri in = ChannelUri.parse("jms:topic:iso.in." + leg);
    ChannelUri warmQueue = ChannelUri.parse("sqs:iso-warm-" + leg);
    ChannelUri aloneQueue = ChannelUri.parse("sqs:iso-alone-" + leg);
    ChannelUri besideQueue = ChannelUri.parse("sqs:iso-beside-" + leg);
    ChannelUri deadLetterQueue = ChannelUri.parse("jms:queue:iso.dlq." + leg);
    String warmType = "com.example.iso.warm." + leg;
    String aloneType = "com.example.iso.alone." + leg;
    String besideType = "com.example.iso.beside." + leg;

    Duration webhookHold = Duration.ofSeconds(5);
    try (SlowFailingWebhook webhook = new SlowFailingWebhook(webhookHold)) {
      assertThat(api.postJson("/api/v1/channels", "{\"uri\": \"" + in + "\"}").status())
          .isEqualTo(201);
      subscribe(api, "warm", warmType, warmQueue, null);
      subscribe(api, "healthy alone", aloneType, aloneQueue, null);
      subscribe(api, "healthy beside", besideType, besideQueue, null);
      String failing =
          subscribe(
              api,
              "failing webhook",
              besideType,
              ChannelUri.parse(webhook.url("/hook")),
              """
          , "retry": {"maxAttempts": %d, "initialBackoff": "PT1S", "maxBackoff": "PT2S", "maxAge": "PT5M"},
          "deadLetter": "%s\""""
                  .formatted(MAX_ATTEMPTS, deadLetterQueue));

      Received warm = new Received();
      Received alone = new Received();
      Received beside = new Received();
      Received dead = new Received();
      List<InboundChannel> receivers =
          List.of(
              receive(warmQueue, warm),
              receive(aloneQueue, alone),
              receive(besideQueue, beside),
              receive(deadLetterQueue, dead));
      try (OutboundChannel producer = channels.adapter(in).openOutbound(in)) {
        run(producer, warmType, 500, warm);
        double aloneSeconds = run(producer, aloneType, EVENTS, alone);
        double besideSeconds = run(producer, besideType, EVENTS, beside);
        double ratio = besideSeconds / aloneSeconds;
        System.out.printf(
            "isolation: healthy subscription %d events alone %.2f s, beside a failing webhook %.2f s"
                + " (%.2fx); webhook requests waiting at once: up to %d%n",
            EVENTS, aloneSeconds, besideSeconds, ratio, webhook.maxConcurrent());

        assertThat(alone.byId).hasSize(EVENTS);
        assertThat(beside.byId).hasSize(EVENTS);
        assertThat(alone.duplicates()).isZero();
        assertThat(beside.duplicates())
            .as("every event reaches the healthy queue exactly once")
            .isZero();
        // Not a timing ratio (that is a figure for perf-tests, and noise on a shared CI host): a
        // healthy
        // subscription coupled to the failing one waits at least one of the webhook's holds per
        // stall, so the
        // extra time beside it stays below a single hold only if the two are independent.
        assertThat(besideSeconds - aloneSeconds)
            .as(
                "seconds the failing webhook added to the healthy subscription (one webhook hold is %d s)",
                webhookHold.toSeconds())
            .isLessThan((double) webhookHold.toSeconds());

        // The webhook's deliveries: parked after park-after, retried from the store, dead-lettered
        // after
        // maxAttempts, each exactly once, with the reason.
        await()
            .atMost(Duration.ofSeconds(240))
            .pollInterval(Duration.ofSeconds(1))
            .until(() -> dead.byId.size() >= EVENTS);
        await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(10))
            .until(() -> dead.events.size() == EVENTS);
        assertThat(dead.duplicates()).as("each dead-lettered exactly once").isZero();
        assertThat(dead.events)
            .allSatisfy(
                e -> {
                  assertThat(String.valueOf(e.getExtension("deadletterreason")))
                      .contains("503")
                      .contains("retry.maxAttempts=" + MAX_ATTEMPTS);
                  assertThat(String.valueOf(e.getExtension("deadletterattempts")))
                      .isEqualTo(String.valueOf(MAX_ATTEMPTS));
                  assertThat(e.getExtension("deadlettersubscription")).isEqualTo(failing);
                });
        assertThat(webhook.failedRequests()).hasSize(EVENTS);
        assertThat(webhook.failedRequests().values())
            .as("each event attempted exactly maxAttempts times")
            .allSatisfy(n -> assertThat(n.get()).isEqualTo(MAX_ATTEMPTS));

        JsonNode deliveries = api.get("/api/v1/subscriptions/" + failing + "/deliveries").json();
        assertThat(deliveries.get("pending").asLong()).isZero();
        assertThat(deliveries.get("deadLetters").asLong()).isEqualTo(EVENTS);
        JsonNode page =
            api.get("/api/v1/dead-letters?subscription=" + failing + "&limit=1000").json();
        assertThat(page.get("items")).hasSize(1000);
        assertThat(page.get("items").get(0).get("reason").asText()).contains("503");
        assertThat(page.get("nextCursor").asText()).isNotBlank();
      } finally {
        for (InboundChannel r : receivers) {
          r.close();
        }
      }
    }
  }

  private String subscribe(Api api, String name, String type, ChannelUri target, String extra) {
    Api.Response r =
        api.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "%s", "pattern": {"type": ["%s"]}, "target": "%s"%s}"""
                .formatted(name, type, target, extra == null ? "" : extra));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return r.json().get("id").asText();
  }

  private InboundChannel receive(ChannelUri uri, Received into) {
    return channels
        .adapter(uri)
        .openInbound(
            uri,
            InboundSettings.strict(),
            (event, ack) -> {
              into.add(event);
              ack.ack();
            });
  }

  /** Sends {@code n} events and returns the seconds from the first send to the last receipt. */
  private static double run(OutboundChannel producer, String type, int n, Received into)
      throws Exception {
    long start = System.nanoTime();
    List<CompletableFuture<Void>> sends = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      CloudEvent e =
          CloudEventBuilder.v1()
              .withId(type + "-" + i)
              .withSource(URI.create("/iso"))
              .withType(type)
              .withDataContentType("application/json")
              .withData(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))
              .build();
      sends.add(producer.send(e));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> into.byId.size() >= n);
    return (into.lastAt.get() - start) / 1e9;
  }
}
