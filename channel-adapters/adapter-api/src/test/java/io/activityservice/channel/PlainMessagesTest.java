package io.activityservice.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PlainMessagesTest {

  private static final ChannelUri CHANNEL = ChannelUri.parse("sqs:orders-in");
  private static final InboundSettings TYPE_ONLY =
      new InboundSettings("com.example.order", null, Map.of());
  private static final OffsetDateTime T = OffsetDateTime.of(2026, 3, 4, 5, 6, 7, 0, ZoneOffset.UTC);

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void jsonBodyWithoutContentTypeOrSource() {
    CloudEvent e = PlainMessages.wrap(CHANNEL, TYPE_ONLY, "m-1", utf8("{\"a\":[1,2]}"), null, T);
    assertThat(e.getId()).isEqualTo("m-1");
    assertThat(e.getType()).isEqualTo("com.example.order");
    assertThat(e.getSource()).isEqualTo(URI.create("sqs:orders-in"));
    assertThat(e.getTime()).isEqualTo(T);
    assertThat(e.getDataContentType()).isEqualTo("application/json");
    assertThat(e.getData().toBytes()).isEqualTo(utf8("{\"a\":[1,2]}"));
    assertThat(e.getExtensionNames()).isEmpty();
  }

  @Test
  void contentTypeSniffing() {
    assertThat(PlainMessages.contentTypeOf(utf8("order 42 shipped"))).isEqualTo("text/plain");
    assertThat(PlainMessages.contentTypeOf(utf8("{\"a\":1} trailing"))).isEqualTo("text/plain");
    assertThat(PlainMessages.contentTypeOf(utf8("   "))).isEqualTo("text/plain");
    assertThat(PlainMessages.contentTypeOf(utf8("42"))).isEqualTo("application/json");
    assertThat(PlainMessages.contentTypeOf(new byte[] {(byte) 0xff, (byte) 0xfe, 0}))
        .isEqualTo("application/octet-stream");
  }

  @Test
  void theTransportsContentTypeAndTheDefaultSourceWin() {
    InboundSettings both =
        new InboundSettings("com.example.order", URI.create("/legacy"), Map.of());
    CloudEvent e =
        PlainMessages.wrap(
            CHANNEL, both, "m-2", utf8("{\"a\":1}"), "application/vnd.acme+json", null);
    assertThat(e.getSource()).isEqualTo(URI.create("/legacy"));
    assertThat(e.getDataContentType()).isEqualTo("application/vnd.acme+json");
    assertThat(e.getTime()).isNull();
  }

  @Test
  void emptyBodyGivesNoDataAndAMissingIdAUuid() {
    CloudEvent e = PlainMessages.wrap(CHANNEL, TYPE_ONLY, null, new byte[0], null, T);
    assertThat(e.getData()).isNull();
    assertThat(e.getDataContentType()).isNull();
    assertThat(UUID.fromString(e.getId())).isNotNull();
  }

  @Test
  void withoutDefaultTypeTheMessageIsRefusedSayingHowToSetOne() {
    assertThatThrownBy(
            () -> PlainMessages.wrap(CHANNEL, InboundSettings.strict(), "m-3", utf8("x"), null, T))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("m-3")
        .hasMessageContaining("sqs:orders-in")
        .hasMessageContaining("set defaultType")
        .hasMessageContaining("\"defaultType\"");
  }

  @Test
  void structuredBodiesAreRecognisedWithoutAContentType() {
    assertThat(CloudEventJson.looksStructured(utf8("{\"specversion\":\"1.0\",\"id\":\"1\"}")))
        .isTrue();
    assertThat(CloudEventJson.looksStructured(utf8("{\"order\":1}"))).isFalse();
    assertThat(CloudEventJson.looksStructured(utf8("[{\"specversion\":\"1.0\"}]"))).isFalse();
    assertThat(CloudEventJson.looksStructured(new byte[0])).isFalse();
  }
}
