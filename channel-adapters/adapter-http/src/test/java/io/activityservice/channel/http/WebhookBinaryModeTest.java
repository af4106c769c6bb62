package io.activityservice.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.WirePreview;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP binding's binary mode over a real HTTP server: the data is the body with its content
 * type, every attribute and extension a {@code ce-*} header, values percent-encoded (§3.1.3.2), and
 * the preview shows the same headers and body.
 */
class WebhookBinaryModeTest {

  LoopbackHook hook;
  final CompletableFuture<Map<String, String>> headers = new CompletableFuture<>();
  final CompletableFuture<byte[]> body = new CompletableFuture<>();

  @BeforeEach
  void start() throws Exception {
    hook =
        new LoopbackHook(
            exchange -> {
              Map<String, String> h = new TreeMap<>();
              exchange.getRequestHeaders().forEach((k, v) -> h.put(k.toLowerCase(), v.get(0)));
              body.complete(exchange.getRequestBody().readAllBytes());
              headers.complete(h);
              exchange.sendResponseHeaders(204, -1);
              exchange.close();
            });
  }

  @AfterEach
  void stop() {
    hook.close();
  }

  static CloudEvent event() {
    return CloudEventBuilder.v1()
        .withId("e-1")
        .withSource(URI.create("/meters/north"))
        .withType("com.example.meter.reading")
        .withSubject("Zähler \"7\" at 100%")
        .withTime(OffsetDateTime.of(2026, 11, 26, 7, 0, 0, 0, ZoneOffset.UTC))
        .withExtension("region", "eu west")
        .withExtension("priority", 3)
        .withData("application/json", "{\"kwh\":42}".getBytes(StandardCharsets.UTF_8))
        .build();
  }

  @Test
  void theDataIsTheBodyAndEveryAttributeAPercentEncodedHeader() throws Exception {
    ChannelUri uri = hook.uri();
    OutboundEvent binary = OutboundEvent.of(event()).withFormat(DeliveryFormat.BINARY);

    hook.adapter.openOutbound(uri).send(binary).get(10, TimeUnit.SECONDS);

    Map<String, String> h = headers.get(10, TimeUnit.SECONDS);
    assertThat(new String(body.get(), StandardCharsets.UTF_8)).isEqualTo("{\"kwh\":42}");
    assertThat(h)
        .containsEntry("content-type", "application/json")
        .containsEntry("ce-specversion", "1.0")
        .containsEntry("ce-id", "e-1")
        .containsEntry("ce-source", "/meters/north")
        .containsEntry("ce-type", "com.example.meter.reading")
        .containsEntry("ce-subject", "Z%C3%A4hler%20%227%22%20at%20100%25")
        .containsEntry("ce-time", "2026-11-26T07:00:00Z")
        .containsEntry("ce-region", "eu%20west")
        .containsEntry("ce-priority", "3")
        .doesNotContainKey("ce-datacontenttype");

    WirePreview preview = hook.adapter.preview(uri, binary);
    assertThat(new String(preview.body(), StandardCharsets.UTF_8)).isEqualTo("{\"kwh\":42}");
    assertThat(preview.headers())
        .containsEntry("content-type", "application/json")
        .containsEntry("ce-subject", "Z%C3%A4hler%20%227%22%20at%20100%25")
        .containsEntry("ce-id", "e-1");
  }

  @Test
  void plainValuesAreSentUnchanged() {
    assertThat(HttpBinaryMode.encode("com.example.meter.reading/v1?x=1&y=2"))
        .isEqualTo("com.example.meter.reading/v1?x=1&y=2");
    assertThat(HttpBinaryMode.encode("tab\there")).isEqualTo("tab%09here");
  }
}
