package io.activityservice.app.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.HeadlessChromium;
import io.activityservice.app.support.WebhookReceiver;
import io.activityservice.app.support.ZipkinServer;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.events.channel.ChannelRegistry;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.zipkin.ZipkinSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The documentation's screenshot of a causal trace (docs/tracing.md, the README): OPT-IN, it runs
 * only with {@code -Dtrace.screenshot=<png path>} ({@code docs/tools/trace-screenshot.sh}); in the
 * default build it is skipped.
 *
 * <p>It plays a small deployment around the service, every part exporting to a real Zipkin server
 * (its executable jar from Maven Central, {@link ZipkinServer}): a meter gateway posts samples to
 * the REST API; the service sends them to a JMS queue; a normalizer consumes them and sends
 * readings to a JMS queue the service reads; a detector (Esper) derives an overload from three
 * readings; the service delivers it to a webhook, where an alarm console handles it. The test finds
 * the derived event's trace in Zipkin's API, opens it in Zipkin's UI in a headless Chromium and
 * writes the screenshot. Zipkin has no span links, so the trace shown is the one of the reading
 * that completed the batch: the derived event's {@code create} span is its child there (the other
 * two readings' traces are linked, which OTLP backends show).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "otel.traces.exporter=zipkin",
      "otel.traces.sampler=parentbased_traceidratio",
      "otel.traces.sampler.arg=1.0",
      "otel.bsp.schedule.delay=200"
    })
class TraceScreenshotIT {

  static final String PROPERTY = "trace.screenshot";
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final String OVERLOAD = "com.example.meter.overload";
  static final WebhookReceiver webhook = new WebhookReceiver();
  static final List<SdkTracerProvider> apps = new ArrayList<>();
  static ZipkinServer zipkin;

  @BeforeAll
  static void startZipkin() throws Exception {
    Assumptions.assumeTrue(
        System.getProperty(PROPERTY) != null,
        "opt-in: -D" + PROPERTY + "=<png> (docs/tools/trace-screenshot.sh) takes the screenshot");
    zipkin = ZipkinServer.start();
  }

  @AfterAll
  static void stop() {
    apps.forEach(SdkTracerProvider::close);
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
  @Autowired ChannelRegistry channels;

  /** A traced application around the service, exporting to the same Zipkin. */
  static Tracer app(String serviceName) {
    SdkTracerProvider provider =
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault()
                    .merge(
                        Resource.create(
                            Attributes.of(AttributeKey.stringKey("service.name"), serviceName))))
            .addSpanProcessor(
                SimpleSpanProcessor.create(
                    ZipkinSpanExporter.builder().setEndpoint(zipkin.spansEndpoint()).build()))
            .build();
    apps.add(provider);
    return provider.get("trace-screenshot");
  }

  @Test
  void aDerivedEventsTraceInZipkinFromTheGatewayThroughJmsAndTheDetectorToTheAlarmConsole()
      throws Exception {
    Path png = Path.of(System.getProperty(PROPERTY)).toAbsolutePath();
    Api api = new Api(port);
    Tracer gateway = app("meter-gateway");
    Tracer normalizer = app("meter-normalizer");
    Tracer console = app("alarm-console");
    for (JsonNode type :
        MAPPER.readTree(
            Files.readString(Path.of("../complex-event-detector/examples/types.json")))) {
      assertThat(api.postJson("/api/v1/event-types", type.toString()).status()).isIn(201, 409);
    }
    ChannelUri samples = ChannelUri.parse("jms:queue:meter.samples");
    ChannelUri readings = ChannelUri.parse("jms:queue:meter.readings");
    ok(
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "samples to the normalizer", "pattern": {"type": ["com.example.meter.sample"]},
             "target": "%s"}"""
                .formatted(samples)));
    ok(
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "overloads to the alarm console", "pattern": {"type": ["%s"]},
             "target": "%s"}"""
                .formatted(OVERLOAD, webhook.url("/alarms"))));
    ok(api.postJson("/api/v1/channels", "{\"uri\": \"" + readings + "\"}"));
    ok(
        api.postJson(
            "/api/v1/detectors",
            """
            {"name": "overload", "inputs": {"R": "com.example.meter.reading"},
             "epl": "select data.meter as meter, avg(data.value) as avgValue, window(*) as causedby from R#length_batch(3) group by data.meter",
             "emits": "%s"}"""
                .formatted(OVERLOAD)));

    AtomicInteger normalized = new AtomicInteger();
    try (OutboundChannel toService = channels.adapter(readings).openOutbound(readings);
        InboundChannel normalize =
            channels
                .adapter(samples)
                .openInbound(
                    samples,
                    new InboundSettings(null, null, Map.of()),
                    (event, ack) -> {
                      // The normalizer continues the sample's trace and sends a reading.
                      Span span =
                          normalizer
                              .spanBuilder("normalize sample")
                              .setSpanKind(SpanKind.CONSUMER)
                              .setParent(contextOf(event.getExtension("traceparent")))
                              .startSpan();
                      JsonNode data = readTree(event.getData().toBytes());
                      CloudEvent reading =
                          CloudEventBuilder.v1()
                              .withId("reading-" + event.getId())
                              .withSource(URI.create("/normalizer"))
                              .withType("com.example.meter.reading")
                              .withTime(event.getTime())
                              .withExtension("traceparent", traceparent(span.getSpanContext()))
                              .withData(
                                  "application/json",
                                  """
                                  {"meter": "%s", "value": %s}"""
                                      .formatted(
                                          data.get("meter").asText(),
                                          data.get("watts").asDouble() / 1000)
                                      .getBytes(StandardCharsets.UTF_8))
                              .build();
                      toService
                          .send(reading)
                          .whenComplete(
                              (sent, error) -> {
                                span.end();
                                normalized.incrementAndGet();
                                if (error == null) {
                                  ack.ack();
                                } else {
                                  ack.nack(error);
                                }
                              });
                    })) {
      for (int i = 0; i < 3; i++) {
        Span post =
            gateway.spanBuilder("post /api/v1/events").setSpanKind(SpanKind.CLIENT).startSpan();
        Api.Response published =
            api.publish(
                """
                {"specversion":"1.0","id":"sample-%d","source":"/meters/m-17",
                 "type":"com.example.meter.sample","time":"%s","traceparent":"%s",
                 "data":{"meter":"m-17","watts":%d}}"""
                    .formatted(
                        i,
                        java.time.OffsetDateTime.now(),
                        traceparent(post.getSpanContext()),
                        61_000 + 700 * i));
        post.end();
        assertThat(published.status()).as(published.body()).isEqualTo(202);
        int expected = i + 1;
        await().atMost(Duration.ofSeconds(30)).until(() -> normalized.get() >= expected);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> !webhook.calls("/alarms").isEmpty());
    }
    JsonNode alarm = readTree(webhook.calls("/alarms").get(0).body().getBytes());
    SpanContext delivered = spanContext(alarm.get("traceparent").asText());
    console
        .spanBuilder("handle overload")
        .setSpanKind(SpanKind.CONSUMER)
        .setParent(Context.root().with(Span.wrap(delivered)))
        .startSpan()
        .end();

    String traceId = delivered.getTraceId();
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
                        && names(t)
                            .containsAll(
                                List.of(
                                    "post /api/v1/events",
                                    "process /api/v1/events",
                                    "send queue:meter.samples",
                                    "normalize sample",
                                    "process queue:meter.readings",
                                    "create " + OVERLOAD,
                                    "handle overload")));
    assertThat(serviceNames(trace))
        .contains("meter-gateway", "activity-service", "meter-normalizer", "alarm-console");

    try (HeadlessChromium browser = HeadlessChromium.start(1400, 1000)) {
      ChromeDriver driver = browser.driver();
      driver.get(zipkin.url("/zipkin/traces/" + traceId));
      WebElement create =
          await()
              .atMost(Duration.ofSeconds(30))
              .ignoreExceptions()
              .until(
                  () ->
                      driver.findElement(
                          // Zipkin's rows read "service: span name".
                          By.xpath("//div[text()='activity-service: create " + OVERLOAD + "']")),
                  e -> e.isDisplayed());
      // The derived event's span selected: its attributes (origin, causes) show in the panel.
      create.click();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> driver.getPageSource().contains("activity.derived.origin"));
      byte[] shot = driver.getScreenshotAs(OutputType.BYTES);
      Files.createDirectories(png.getParent());
      Files.write(png, shot);
      assertThat(shot.length).as("screenshot bytes").isBetween(10_000, 300_000);
    }
  }

  private static void ok(Api.Response response) {
    assertThat(response.status()).as(response.body()).isEqualTo(201);
  }

  private static List<String> names(JsonNode trace) {
    List<String> names = new ArrayList<>();
    trace.forEach(s -> names.add(s.get("name").asText()));
    return names;
  }

  private static List<String> serviceNames(JsonNode trace) {
    List<String> names = new ArrayList<>();
    trace.forEach(s -> names.add(s.get("localEndpoint").get("serviceName").asText()));
    return names;
  }

  private static Context contextOf(Object traceparent) {
    return Context.root().with(Span.wrap(spanContext(String.valueOf(traceparent))));
  }

  private static String traceparent(SpanContext context) {
    return TracingAcrossHopsTest.traceparent(context);
  }

  private static SpanContext spanContext(String traceparent) {
    return TracingAcrossHopsTest.spanContext(traceparent);
  }

  private static JsonNode readTree(byte[] json) {
    try {
      return MAPPER.readTree(json);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
