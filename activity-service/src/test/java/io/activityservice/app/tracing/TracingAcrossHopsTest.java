package io.activityservice.app.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.WebhookReceiver;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.Redaction;
import io.activityservice.channel.sqs.LocalStackSqs;
import io.activityservice.events.channel.ChannelRegistry;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * One trace across every hop (issue 23), on real servers: ActiveMQ over TCP (the service's embedded
 * broker), LocalStack SQS, an embedded Kafka broker and real HTTP webhooks. The service traces with
 * the OpenTelemetry SDK and an in-memory exporter; the test plays instrumented producers and
 * consumers with the same SDK, so the spans of both sides are in one place. Each test walks the
 * parent chain from the {@code traceparent} a consumer received back to the producer's span.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.cloud.stream.kafka.binder.brokers=${spring.embedded.kafka.brokers}",
      "activity.channels.sqs.embedded.enabled=false"
    })
@EmbeddedKafka(partitions = 1)
class TracingAcrossHopsTest {

  static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final WebhookReceiver webhook = new WebhookReceiver();
  static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("activity.delivery.attempt");

  /** The service traces every event (parent-based, always on) and exports to memory. */
  @TestConfiguration
  static class InMemoryTracing {
    @Bean(destroyMethod = "close")
    OpenTelemetrySdk openTelemetry() {
      return OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .setSampler(Sampler.parentBased(Sampler.alwaysOn()))
                  .addSpanProcessor(SimpleSpanProcessor.create(SPANS))
                  .build())
          .build();
    }
  }

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
  @Autowired OpenTelemetry openTelemetry;
  @Autowired MeterRegistry meters;

  @AfterAll
  static void stopWebhook() {
    webhook.close();
  }

  /** The test's own instrumented producers and consumers. */
  Tracer app() {
    return openTelemetry.getTracer("test-app");
  }

  @Test
  void oneTraceFromRestThroughJmsAndTheServiceAgainToAnSqsConsumer() throws Exception {
    String leg = leg();
    Api api = new Api(port);
    String typeA = "com.example.trace.a" + leg;
    String typeB = "com.example.trace.b" + leg;
    ChannelUri relayQueue = ChannelUri.parse("jms:queue:trace.relay-" + leg);
    ChannelUri serviceIn = ChannelUri.parse("jms:queue:trace.in-" + leg);
    ChannelUri sqsOut = ChannelUri.parse("sqs:trace-out-" + leg);
    subscribe(api, typeA, relayQueue.toString());
    subscribe(api, typeB, sqsOut.toString());
    assertThat(api.postJson("/api/v1/channels", "{\"uri\": \"" + serviceIn + "\"}").status())
        .isEqualTo(201);

    List<CloudEvent> consumed = new CopyOnWriteArrayList<>();
    try (OutboundChannel toService = channels.adapter(serviceIn).openOutbound(serviceIn);
        InboundChannel relay =
            channels
                .adapter(relayQueue)
                .openInbound(
                    relayQueue,
                    settings(leg),
                    (event, ack) -> {
                      // An instrumented application: consumes A, continues its trace, sends B.
                      Span span =
                          app()
                              .spanBuilder("relay")
                              .setSpanKind(SpanKind.CONSUMER)
                              .setParent(contextOf(event))
                              .startSpan();
                      CloudEvent b =
                          CloudEventBuilder.v1()
                              .withId("b-" + leg)
                              .withSource(URI.create("/relay"))
                              .withType(typeB)
                              .withExtension("traceparent", traceparent(span.getSpanContext()))
                              .build();
                      toService
                          .send(b)
                          .whenComplete(
                              (ok, error) -> {
                                span.end();
                                if (error == null) {
                                  ack.ack();
                                } else {
                                  ack.nack(error);
                                }
                              });
                    });
        InboundChannel consumer =
            channels
                .adapter(sqsOut)
                .openInbound(
                    sqsOut,
                    settings(leg),
                    (event, ack) -> {
                      consumed.add(event);
                      ack.ack();
                    })) {
      Span producer = app().spanBuilder("producer").setSpanKind(SpanKind.PRODUCER).startSpan();
      producer.end();
      // The producer traces its HTTP call, not its event: the W3C header starts the event's trace.
      Api.Response published =
          api.post(
              "/api/v1/events",
              "application/cloudevents+json",
              """
              {"specversion":"1.0","id":"a-%s","source":"/producer","type":"%s"}"""
                  .formatted(leg, typeA),
              Map.of("traceparent", traceparent(producer.getSpanContext())));
      assertThat(published.status()).as(published.body()).isEqualTo(202);

      await().atMost(Duration.ofSeconds(60)).until(() -> !consumed.isEmpty());
      CloudEvent received = consumed.get(0);
      assertThat(received.getId()).isEqualTo("b-" + leg);
      SpanContext continued = spanContext(received);
      assertThat(continued.getTraceId()).isEqualTo(producer.getSpanContext().getTraceId());

      List<SpanData> chain = await().until(() -> chain(continued), c -> endsAt(c, producer));
      assertThat(chain)
          .extracting(SpanData::getName)
          .containsExactly(
              "send trace-out-" + leg,
              "process queue:trace.in-" + leg,
              "relay",
              "send queue:trace.relay-" + leg,
              "process /api/v1/events",
              "producer");
      assertThat(chain)
          .extracting(SpanData::getKind)
          .containsExactly(
              SpanKind.PRODUCER,
              SpanKind.CONSUMER,
              SpanKind.CONSUMER,
              SpanKind.PRODUCER,
              SpanKind.CONSUMER,
              SpanKind.PRODUCER);
      assertThat(chain.get(0).getAttributes().get(SYSTEM)).isEqualTo("aws_sqs");
      assertThat(chain.get(1).getAttributes().get(SYSTEM)).isEqualTo("activemq");
      assertThat(chain.get(3).getAttributes().get(SYSTEM)).isEqualTo("activemq");
      assertThat(chain.get(4).getAttributes().get(SYSTEM)).isEqualTo("http");
      assertThat(chain.get(1).getAttributes().get(AttributeKey.stringKey("cloudevents.event_id")))
          .isEqualTo("b-" + leg);
      // Ingest and route are steps of the receive span; the route names the matched subscription.
      String receiveSpan = chain.get(1).getSpanId();
      await()
          .untilAsserted(
              () ->
                  assertThat(
                          SPANS.getFinishedSpanItems().stream()
                              .filter(s -> s.getParentSpanId().equals(receiveSpan))
                              .map(SpanData::getName))
                      .contains("ingest", "route", "send trace-out-" + leg));
      SpanData route =
          SPANS.getFinishedSpanItems().stream()
              .filter(s -> s.getParentSpanId().equals(receiveSpan) && s.getName().equals("route"))
              .findFirst()
              .orElseThrow();
      assertThat(route.getAttributes().get(AttributeKey.longKey("activity.routing.matched")))
          .isEqualTo(1L);
    }
  }

  @Test
  void oneTraceFromKafkaToAWebhookThatReceivesTheDeliverySpansContext() throws Exception {
    String leg = leg();
    Api api = new Api(port);
    String type = "com.example.trace.k" + leg;
    ChannelUri kafkaIn = ChannelUri.parse("kafka:trace.in-" + leg);
    // A token-like segment (a UUID), which the span name must not show.
    String path = "/kafka/" + UUID.randomUUID();
    subscribe(api, type, webhook.url(path));
    assertThat(api.postJson("/api/v1/channels", "{\"uri\": \"" + kafkaIn + "\"}").status())
        .isEqualTo(201);

    Span producer = app().spanBuilder("producer").setSpanKind(SpanKind.PRODUCER).startSpan();
    try (OutboundChannel out = channels.adapter(kafkaIn).openOutbound(kafkaIn)) {
      // The inbound channel may need a moment to join its group: resend until one arrives.
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(3))
          .until(
              () -> {
                out.send(
                        CloudEventBuilder.v1()
                            .withId("k-" + leg)
                            .withSource(URI.create("/producer"))
                            .withType(type)
                            .withExtension("traceparent", traceparent(producer.getSpanContext()))
                            .build())
                    .get(10, TimeUnit.SECONDS);
                return !webhook.calls(path).isEmpty();
              });
    }
    producer.end();
    JsonNode body = MAPPER.readTree(webhook.calls(path).get(0).body());
    SpanContext continued = spanContext(body.get("traceparent").asText());
    assertThat(continued.getTraceId()).isEqualTo(producer.getSpanContext().getTraceId());
    List<SpanData> chain = await().until(() -> chain(continued), c -> endsAt(c, producer));
    // Webhook URLs are named without their path (it may carry a token), as everywhere else.
    assertThat(chain)
        .extracting(SpanData::getName)
        .startsWith("send " + Redaction.uri(ChannelUri.parse(webhook.url(path))));
    assertThat(chain.get(0).getName()).doesNotContain(path);
    assertThat(chain.get(0).getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(chain.get(1).getName()).isEqualTo("process trace.in-" + leg);
    assertThat(chain.get(1).getAttributes().get(SYSTEM)).isEqualTo("kafka");
  }

  /**
   * Per-hop latency without a tracing backend (issue 23, item 4): real traffic REST → JMS and JMS →
   * a webhook that fails once (so the delivery parks and a retry delivers it) fills every {@code
   * activity.hop.*} timer, tagged by the inbound channel's or the target's scheme. The producers
   * back-date their events' {@code time}, so the transport wait has a known floor.
   */
  @Test
  void perHopTimersCountRealTrafficFromRestAndJmsToJmsAndAParkedWebhookDelivery() throws Exception {
    String leg = leg();
    Api api = new Api(port);
    String typeA = "com.example.hops.a" + leg;
    String typeB = "com.example.hops.b" + leg;
    ChannelUri jmsOut = ChannelUri.parse("jms:queue:hops.out-" + leg);
    ChannelUri serviceIn = ChannelUri.parse("jms:queue:hops.in-" + leg);
    String path = "/hops-" + leg;
    subscribe(api, typeA, jmsOut.toString());
    assertThat(
            api.postJson(
                    "/api/v1/subscriptions",
                    """
                    {"name": "hops %s", "pattern": {"type": ["%s"]}, "target": "%s",
                     "retry": {"maxAttempts": 3, "initialBackoff": "PT0.05S", "maxBackoff": "PT0.1S"}}"""
                        .formatted(leg, typeB, webhook.url(path)))
                .status())
        .isEqualTo(201);
    webhook.failNext(path, 1);
    assertThat(api.postJson("/api/v1/channels", "{\"uri\": \"" + serviceIn + "\"}").status())
        .isEqualTo(201);
    long parkedBefore = count("activity.hop.parked", "http");
    long jmsWaitsBefore = count("activity.hop.transport", "jms");
    double jmsWaitedBefore = total("activity.hop.transport", "jms");

    List<CloudEvent> consumed = new CopyOnWriteArrayList<>();
    try (OutboundChannel toService = channels.adapter(serviceIn).openOutbound(serviceIn);
        InboundChannel consumer =
            channels
                .adapter(jmsOut)
                .openInbound(
                    jmsOut,
                    settings(leg),
                    (event, ack) -> {
                      consumed.add(event);
                      ack.ack();
                    })) {
      OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
      assertThat(
              api.publish(
                      """
                      {"specversion":"1.0","id":"ha-%s","source":"/producer","type":"%s",
                       "time":"%s"}"""
                          .formatted(leg, typeA, now.minusSeconds(2)))
                  .status())
          .isEqualTo(202);
      toService
          .send(
              CloudEventBuilder.v1()
                  .withId("hb-" + leg)
                  .withSource(URI.create("/producer"))
                  .withType(typeB)
                  // Made an hour before it was sent: the wait counts from the JMSTimestamp.
                  .withTime(now.minusHours(1))
                  .build())
          .get(10, TimeUnit.SECONDS);

      await().atMost(Duration.ofSeconds(60)).until(() -> !consumed.isEmpty());
      await().atMost(Duration.ofSeconds(60)).until(() -> webhook.calls(path).size() == 1);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> count("activity.hop.parked", "http") > parkedBefore);
    }

    // Producer's time to receipt: at least the back-dating, well under a minute.
    assertWithin(timer("activity.hop.transport", "rest"), 2_000, 60_000);
    // JMS: from the broker's JMSTimestamp, not the event's time an hour back.
    assertThat(count("activity.hop.transport", "jms")).isGreaterThan(jmsWaitsBefore);
    assertThat(total("activity.hop.transport", "jms") - jmsWaitedBefore)
        .as("JMS transport wait (ms) of this test's event")
        .isBetween(0.0, 60_000.0);
    // Ingest and matching are in-memory: counted, and far below a second.
    assertWithin(meters.get("activity.hop.ingest").timer(), 0, 1_000);
    assertWithin(meters.get("activity.hop.route").timer(), 0, 1_000);
    // Send until the target acknowledged: the JMS broker and the webhook's HTTP 2xx.
    assertWithin(timer("activity.hop.send", "jms"), 0, 10_000);
    assertWithin(timer("activity.hop.send", "http"), 0, 10_000);
    // Parked until a retry from the store delivered it: bounded by the retry policy and the lease.
    assertWithin(timer("activity.hop.parked", "http"), 0, 30_000);
  }

  private Timer timer(String name, String channel) {
    return meters.get(name).tag("channel", channel).timer();
  }

  private long count(String name, String channel) {
    Timer t = meters.find(name).tag("channel", channel).timer();
    return t == null ? 0 : t.count();
  }

  private double total(String name, String channel) {
    Timer t = meters.find(name).tag("channel", channel).timer();
    return t == null ? 0 : t.totalTime(TimeUnit.MILLISECONDS);
  }

  private static void assertWithin(Timer timer, long minMillis, long maxMillis) {
    assertThat(timer.count()).as(timer.getId() + " count").isPositive();
    assertThat(timer.max(TimeUnit.MILLISECONDS))
        .as(timer.getId() + " max (ms)")
        .isBetween((double) minMillis, (double) maxMillis);
  }

  @Test
  void aRetryAfterAFailingTargetContinuesTheTraceAndTheTargetReceivesTheRetrysContext() {
    String leg = leg();
    Api api = new Api(port);
    String type = "com.example.trace.r" + leg;
    String path = "/retry-" + leg;
    assertThat(
            api.postJson(
                    "/api/v1/subscriptions",
                    """
                    {"name": "retry %s", "pattern": {"type": ["%s"]}, "target": "%s",
                     "retry": {"maxAttempts": 3, "initialBackoff": "PT0.05S", "maxBackoff": "PT0.1S"}}"""
                        .formatted(leg, type, webhook.url(path)))
                .status())
        .isEqualTo(201);
    webhook.failNext(path, 1);
    Span producer = app().spanBuilder("producer").setSpanKind(SpanKind.PRODUCER).startSpan();
    producer.end();
    assertThat(
            api.publish(
                    """
                    {"specversion":"1.0","id":"r-%s","source":"/producer","type":"%s",
                     "traceparent":"%s"}"""
                        .formatted(leg, type, traceparent(producer.getSpanContext())))
                .status())
        .isEqualTo(202);

    await().atMost(Duration.ofSeconds(30)).until(() -> !webhook.calls(path).isEmpty());
    SpanContext continued =
        spanContext(readTree(webhook.calls(path).get(0).body()).get("traceparent").asText());
    assertThat(continued.getTraceId()).isEqualTo(producer.getSpanContext().getTraceId());
    // The retry runs from the durable store: its span is a child of the stored event's context.
    List<SpanData> chain = await().until(() -> chain(continued), c -> endsAt(c, producer));
    assertThat(chain).hasSize(2);
    assertThat(chain.get(0).getAttributes().get(ATTEMPT)).isEqualTo(2L);
    assertThat(chain.get(0).getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
    // The failed first attempt is in the same trace, marked failed.
    await()
        .untilAsserted(
            () ->
                assertThat(
                        spansOf(producer.getSpanContext().getTraceId()).stream()
                            .filter(s -> Long.valueOf(1L).equals(s.getAttributes().get(ATTEMPT))))
                    .singleElement()
                    .satisfies(
                        first ->
                            assertThat(first.getStatus().getStatusCode())
                                .isEqualTo(StatusCode.ERROR)));
  }

  @Test
  void aDetectorsDerivedEventLinksToEveryEventItWasDerivedFrom() throws Exception {
    String leg = leg();
    Api api = new Api(port);
    Path examples = Path.of("../complex-event-detector/examples");
    for (JsonNode type : MAPPER.readTree(Files.readString(examples.resolve("types.json")))) {
      assertThat(api.postJson("/api/v1/event-types", type.toString()).status()).isIn(201, 409);
    }
    String detector = "traced" + leg.replace("-", "");
    String emits = "com.example.meter.overload";
    String path = "/derived-" + leg;
    String meter = "m" + leg;
    assertThat(
            api.postJson(
                    "/api/v1/subscriptions",
                    """
                    {"name": "derived %s", "pattern": {"type": ["%s"], "data": {"meter": ["%s"]}},
                     "target": "%s"}"""
                        .formatted(leg, emits, meter, webhook.url(path)))
                .status())
        .isEqualTo(201);
    Api.Response created =
        api.postJson(
            "/api/v1/detectors",
            """
            {"name": "%s", "inputs": {"R": "com.example.meter.reading"},
             "epl": "select data.meter as meter, avg(data.value) as avgValue, window(*) as causedby from R#length_batch(3) group by data.meter",
             "emits": "%s"}"""
                .formatted(detector, emits));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    try {
      List<SpanContext> inputs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Span producer = app().spanBuilder("reading").setSpanKind(SpanKind.PRODUCER).startSpan();
        producer.end();
        inputs.add(producer.getSpanContext());
        assertThat(
                api.publish(
                        """
                        {"specversion":"1.0","id":"in-%s-%d","source":"/meters","type":"com.example.meter.reading",
                         "time":"2025-01-01T00:00:0%dZ","traceparent":"%s",
                         "data":{"meter":"%s","value":%d}}"""
                            .formatted(
                                leg, i, i, traceparent(producer.getSpanContext()), meter, 60 + i))
                    .status())
            .isEqualTo(202);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> !webhook.calls(path).isEmpty());
      JsonNode derived = readTree(webhook.calls(path).get(0).body());
      SpanContext continued = spanContext(derived.get("traceparent").asText());
      // send <- create (the derived event's span) <- the last reading's receive span <- reading
      List<SpanData> chain =
          await().until(() -> chain(continued), c -> c.size() >= 2 && hasCreate(c, emits));
      SpanData create =
          chain.stream().filter(s -> s.getName().equals("create " + emits)).findFirst().get();
      assertThat(create.getLinks())
          .extracting(LinkData::getSpanContext)
          .extracting(SpanContext::getTraceId)
          .containsExactlyInAnyOrderElementsOf(
              inputs.stream().map(SpanContext::getTraceId).toList());
      assertThat(create.getAttributes().get(AttributeKey.stringKey("activity.derived.origin")))
          .isEqualTo("detector:" + detector);
    } finally {
      api.delete("/api/v1/detectors/" + detector);
    }
  }

  @Test
  void aDeadLetterKeepsTheTraceContextAndItsRedriveContinuesTheProducersTrace() {
    String leg = leg();
    Api api = new Api(port);
    String type = "com.example.trace.d" + leg;
    String path = "/redrive-" + leg;
    Api.Response sub =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "dl %s", "pattern": {"type": ["%s"]}, "target": "%s", "retry": {"maxAttempts": 1}}"""
                .formatted(leg, type, webhook.url(path)));
    assertThat(sub.status()).isEqualTo(201);
    String id = sub.json().get("id").asText();
    webhook.failNext(path, 1);
    Span producer = app().spanBuilder("producer").setSpanKind(SpanKind.PRODUCER).startSpan();
    producer.end();
    String traceparent = traceparent(producer.getSpanContext());
    assertThat(
            api.publish(
                    """
                    {"specversion":"1.0","id":"d-%s","source":"/producer","type":"%s",
                     "traceparent":"%s"}"""
                        .formatted(leg, type, traceparent))
                .status())
        .isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                api.get("/api/v1/dead-letters?subscription=" + id).json().get("items").size() == 1);
    JsonNode letter = api.get("/api/v1/dead-letters?subscription=" + id).json().get("items").get(0);
    assertThat(letter.get("event").get("traceparent").asText()).isEqualTo(traceparent);

    Api.Response redriven =
        api.postJson("/api/v1/dead-letters/redrive", "{\"subscription\": \"" + id + "\"}");
    assertThat(redriven.status()).as(redriven.body()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(20)).until(() -> !webhook.calls(path).isEmpty());
    SpanContext continued =
        spanContext(readTree(webhook.calls(path).get(0).body()).get("traceparent").asText());
    List<SpanData> chain = await().until(() -> chain(continued), c -> endsAt(c, producer));
    assertThat(chain).hasSize(2);
    assertThat(chain.get(0).getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(chain.get(0).getAttributes().get(AttributeKey.stringKey("activity.subscription")))
        .isEqualTo(id);
  }

  @Test
  void aDeadLetterHandedToItsDeadLetterChannelIsASendSpanWithTheReasonInTheProducersTrace()
      throws Exception {
    String leg = leg();
    Api api = new Api(port);
    String type = "com.example.trace.dlc" + leg;
    String path = "/dlc-" + leg;
    ChannelUri dlc = ChannelUri.parse("jms:queue:trace.dlc-" + leg);
    Api.Response sub =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "dlc %s", "pattern": {"type": ["%s"]}, "target": "%s",
             "retry": {"maxAttempts": 1}, "deadLetter": "%s"}"""
                .formatted(leg, type, webhook.url(path), dlc));
    assertThat(sub.status()).as(sub.body()).isEqualTo(201);
    String id = sub.json().get("id").asText();
    webhook.failNext(path, 1);
    List<CloudEvent> dead = new CopyOnWriteArrayList<>();
    try (InboundChannel consumer =
        channels
            .adapter(dlc)
            .openInbound(
                dlc,
                settings(leg),
                (event, ack) -> {
                  dead.add(event);
                  ack.ack();
                })) {
      Span producer = app().spanBuilder("producer").setSpanKind(SpanKind.PRODUCER).startSpan();
      producer.end();
      assertThat(
              api.publish(
                      """
                      {"specversion":"1.0","id":"dlc-%s","source":"/producer","type":"%s",
                       "traceparent":"%s"}"""
                          .formatted(leg, type, traceparent(producer.getSpanContext())))
                  .status())
          .isEqualTo(202);
      await().atMost(Duration.ofSeconds(30)).until(() -> !dead.isEmpty());
      CloudEvent letter = dead.get(0);
      assertThat(letter.getId()).isEqualTo("dlc-" + leg);
      assertThat(letter.getExtension("deadlettersubscription")).isEqualTo(id);
      SpanContext continued = spanContext(letter);
      // The dead-letter channel's consumer continues from the hand-over's span, in the
      // producer's trace: send <dlc> <- the producer's span (the stored event's traceparent).
      List<SpanData> chain = await().until(() -> chain(continued), c -> endsAt(c, producer));
      assertThat(chain).hasSize(2);
      SpanData send = chain.get(0);
      assertThat(send.getName()).isEqualTo("send queue:trace.dlc-" + leg);
      assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
      assertThat(send.getAttributes().get(SYSTEM)).isEqualTo("activemq");
      assertThat(send.getAttributes().get(AttributeKey.stringKey("activity.subscription")))
          .isEqualTo(id);
      assertThat(send.getAttributes().get(AttributeKey.stringKey("activity.dead_letter.reason")))
          .isNotBlank()
          .isEqualTo(String.valueOf(letter.getExtension("deadletterreason")));
      assertThat(send.getAttributes().get(AttributeKey.stringKey("activity.dead_letter.origin")))
          .startsWith("http://127.0.0.1:");
      assertThat(send.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
    }
  }

  @Test
  void anArchivedEventKeepsItsTraceContextAndItsReplayIsANewTraceLinkedToTheOriginal() {
    String leg = leg();
    Api api = new Api(port);
    String type = "com.example.trace.arc" + leg;
    assertThat(
            api.postJson(
                    "/api/v1/archives",
                    """
                    {"name": "tarc-%s", "pattern": {"type": ["%s"]}, "retention": "P7D"}"""
                        .formatted(leg, type))
                .status())
        .isEqualTo(201);
    Span producer = app().spanBuilder("producer").setSpanKind(SpanKind.PRODUCER).startSpan();
    producer.end();
    String traceparent = traceparent(producer.getSpanContext());
    assertThat(
            api.publish(
                    """
                    {"specversion":"1.0","id":"arc-%s","source":"/producer","type":"%s",
                     "time":"2026-11-20T08:00:00Z","traceparent":"%s"}"""
                        .formatted(leg, type, traceparent))
                .status())
        .isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> api.get("/api/v1/archives/tarc-" + leg).json().get("eventCount").asInt() == 1);
    JsonNode archived =
        api.get("/api/v1/archives/tarc-" + leg + "/events").json().get("items").get(0);
    assertThat(archived.toString()).contains(traceparent);

    String path = "/replayed-" + leg;
    Api.Response late =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "late %s", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                .formatted(leg, type, webhook.url(path)));
    String lateId = late.json().get("id").asText();
    Api.Response replay =
        api.postJson(
            "/api/v1/replays",
            """
            {"name": "trp-%s", "archive": "tarc-%s", "from": "2026-11-20T07:00:00Z",
             "to": "2026-11-20T09:00:00Z",
             "destinations": {"subscriptions": ["%s"], "detectors": [], "rules": []}}"""
                .formatted(leg, leg, lateId));
    assertThat(replay.status()).as(replay.body()).isEqualTo(201);
    await().atMost(Duration.ofSeconds(30)).until(() -> !webhook.calls(path).isEmpty());
    JsonNode delivered = readTree(webhook.calls(path).get(0).body());
    SpanContext continued = spanContext(delivered.get("traceparent").asText());
    // A replay is a new cause: a new trace, whose root links to the original producer's span.
    assertThat(continued.getTraceId()).isNotEqualTo(producer.getSpanContext().getTraceId());
    List<SpanData> chain =
        await()
            .until(
                () -> chain(continued),
                c -> c.size() == 2 && c.get(1).getName().equals("replay trp-" + leg));
    assertThat(chain.get(1).getLinks())
        .extracting(LinkData::getSpanContext)
        .extracting(SpanContext::getTraceId, SpanContext::getSpanId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                producer.getSpanContext().getTraceId(), producer.getSpanContext().getSpanId()));
  }

  // ---- helpers

  private static boolean hasCreate(List<SpanData> chain, String emits) {
    return chain.stream().anyMatch(s -> s.getName().equals("create " + emits));
  }

  /** The finished spans from {@code start} up its parents, as far as they are finished. */
  static List<SpanData> chain(SpanContext start) {
    List<SpanData> chain = new ArrayList<>();
    String trace = start.getTraceId();
    String id = start.getSpanId();
    while (true) {
      String current = id;
      Optional<SpanData> span =
          SPANS.getFinishedSpanItems().stream()
              .filter(s -> s.getTraceId().equals(trace) && s.getSpanId().equals(current))
              .findFirst();
      if (span.isEmpty()) {
        return chain;
      }
      chain.add(span.get());
      id = span.get().getParentSpanId();
    }
  }

  static boolean endsAt(List<SpanData> chain, Span producer) {
    return !chain.isEmpty()
        && chain.get(chain.size() - 1).getSpanId().equals(producer.getSpanContext().getSpanId());
  }

  static List<SpanData> spansOf(String traceId) {
    return SPANS.getFinishedSpanItems().stream()
        .filter(s -> s.getTraceId().equals(traceId))
        .toList();
  }

  private void subscribe(Api api, String type, String target) {
    Api.Response r =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "trace %s", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                .formatted(type, type, target));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
  }

  private static InboundSettings settings(String leg) {
    return new InboundSettings(
        null, null, Map.of("subscriptionName", "trace-" + leg, "group", "trace-" + leg));
  }

  static String leg() {
    return UUID.randomUUID().toString().substring(0, 8);
  }

  static String traceparent(SpanContext context) {
    return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-01";
  }

  static SpanContext spanContext(CloudEvent event) {
    Object tp = event.getExtension("traceparent");
    assertThat(tp).as("traceparent of the received event").isNotNull();
    return spanContext(tp.toString());
  }

  static SpanContext spanContext(String traceparent) {
    String[] parts = traceparent.split("-");
    assertThat(parts).as(traceparent).hasSize(4);
    return SpanContext.createFromRemoteParent(
        parts[1],
        parts[2],
        io.opentelemetry.api.trace.TraceFlags.fromHex(parts[3], 0),
        io.opentelemetry.api.trace.TraceState.getDefault());
  }

  static Context contextOf(CloudEvent event) {
    return Context.root().with(Span.wrap(spanContext(event)));
  }

  static JsonNode readTree(String body) {
    try {
      return MAPPER.readTree(body.getBytes(StandardCharsets.UTF_8));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
