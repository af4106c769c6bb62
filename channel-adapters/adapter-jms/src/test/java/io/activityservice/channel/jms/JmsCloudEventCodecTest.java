package io.activityservice.channel.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.InboundSettings;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import jakarta.jms.BytesMessage;
import jakarta.jms.Message;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.apache.activemq.command.ActiveMQBytesMessage;
import org.apache.activemq.command.ActiveMQMapMessage;
import org.apache.activemq.command.ActiveMQMessage;
import org.apache.activemq.command.ActiveMQTextMessage;
import org.junit.jupiter.api.Test;

/** The codec on real ActiveMQ message objects, without a broker. */
class JmsCloudEventCodecTest {

  private static final io.activityservice.channel.ChannelUri CHANNEL =
      io.activityservice.channel.ChannelUri.parse("jms:queue:legacy.in");
  private static final InboundSettings WRAP =
      new InboundSettings("com.example.legacy", URI.create("/legacy/app"), Map.of());

  private final JmsCloudEventCodec codec = new JmsCloudEventCodec();

  /** A Session that only creates messages, as ActiveMQ's does. */
  private static final Session SESSION =
      (Session)
          Proxy.newProxyInstance(
              JmsCloudEventCodecTest.class.getClassLoader(),
              new Class<?>[] {Session.class},
              (proxy, method, args) ->
                  switch (method.getName()) {
                    case "createMessage" -> new ActiveMQMessage();
                    case "createBytesMessage" -> new ActiveMQBytesMessage();
                    case "createTextMessage" -> {
                      ActiveMQTextMessage m = new ActiveMQTextMessage();
                      if (args != null && args.length == 1) {
                        m.setText((String) args[0]);
                      }
                      yield m;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                  });

  private static CloudEvent fullEvent(String contentType, byte[] data) {
    return CloudEventBuilder.v1()
        .withId("id-1")
        .withSource(URI.create("https://example.com/orders"))
        .withType("com.example.order.created")
        .withSubject("order-42")
        .withTime(OffsetDateTime.of(2026, 3, 4, 5, 6, 7, 890_000_000, ZoneOffset.ofHours(2)))
        .withDataSchema(URI.create("https://example.com/schemas/order"))
        .withExtension("sequence", 42)
        .withExtension("sampled", true)
        .withExtension("partitionkey", "p-7")
        .withData(contentType, data)
        .build();
  }

  /** What a consumer sees: the body made readable, as after a real send. */
  private static Message received(Message m) throws Exception {
    if (m instanceof ActiveMQBytesMessage bytes) {
      bytes.reset();
    }
    return m;
  }

  @Test
  void dataFormatSendsTheDataAloneWithItsContentType() throws Exception {
    CloudEvent sent =
        fullEvent("application/json", "{\"ref\":\"o-1\"}".getBytes(StandardCharsets.UTF_8));

    Message message =
        codec.toMessage(SESSION, JmsCloudEventCodec.wireFormat(DeliveryFormat.DATA).encode(sent));

    assertThat(message).isInstanceOf(TextMessage.class);
    assertThat(((TextMessage) message).getText()).isEqualTo("{\"ref\":\"o-1\"}");
    assertThat(java.util.Collections.list(message.getPropertyNames()))
        .containsExactly(JmsCloudEventCodec.CONTENT_TYPE);
    assertThat(message.getStringProperty(JmsCloudEventCodec.CONTENT_TYPE))
        .isEqualTo("application/json");
    byte[] octets = {0, (byte) 0xff, 7};
    assertThat(
            codec.toMessage(
                SESSION,
                JmsCloudEventCodec.DATA.encode(fullEvent("application/octet-stream", octets))))
        .isInstanceOf(jakarta.jms.BytesMessage.class);
  }

  @Test
  void structuredFormatRoundTripsThroughTheDecoder() throws Exception {
    CloudEvent sent =
        fullEvent("application/json", "{\"total\":12.5}".getBytes(StandardCharsets.UTF_8));

    Message message =
        codec.toMessage(
            SESSION, JmsCloudEventCodec.wireFormat(DeliveryFormat.STRUCTURED).encode(sent));

    assertThat(message.propertyExists("cloudEvents_id")).isFalse();
    assertThat(message.getStringProperty(JmsCloudEventCodec.CONTENT_TYPE))
        .isEqualTo("application/cloudevents+json");
    CloudEvent got = codec.decode(received(message), CHANNEL, InboundSettings.strict());
    assertThat(got.getId()).isEqualTo(sent.getId());
    assertThat(got.getType()).isEqualTo(sent.getType());
    assertThat(got.getExtension("sequence")).isEqualTo(42);
    assertThat(new String(got.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("{\"total\":12.5}");
    assertThat(JmsCloudEventCodec.wireFormat(null)).isSameAs(JmsCloudEventCodec.BINARY);
  }

  @Test
  void binaryModeRoundTripKeepsAttributesExtensionsAndData() throws Exception {
    CloudEvent sent =
        fullEvent(
            "application/json",
            "{\"total\":12.5,\"name\":\"héllo\"}".getBytes(StandardCharsets.UTF_8));

    Message message = codec.encode(SESSION, sent);

    assertThat(message).isInstanceOf(TextMessage.class);
    assertThat(message.getStringProperty("cloudEvents_id")).isEqualTo("id-1");
    assertThat(message.getStringProperty("cloudEvents_specversion")).isEqualTo("1.0");
    assertThat(message.getStringProperty("cloudEvents_time"))
        .isEqualTo("2026-03-04T05:06:07.89+02:00");
    assertThat(message.getStringProperty(JmsCloudEventCodec.CONTENT_TYPE))
        .isEqualTo("application/json");
    assertThat(message.getObjectProperty("cloudEvents_sequence")).isEqualTo(42);
    assertThat(message.getObjectProperty("cloudEvents_sampled")).isEqualTo(true);

    CloudEvent got = codec.decode(received(message), CHANNEL, InboundSettings.strict());
    assertThat(got).isEqualTo(sent);
  }

  @Test
  void uriAndTimeExtensionsTravelAsTheirCanonicalStrings() throws Exception {
    CloudEvent sent =
        CloudEventBuilder.v1()
            .withId("x")
            .withSource(URI.create("/s"))
            .withType("t")
            .withExtension("origin", URI.create("urn:example:origin"))
            .withExtension("seen", OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC))
            .build();

    CloudEvent got =
        codec.decode(received(codec.encode(SESSION, sent)), CHANNEL, InboundSettings.strict());

    assertThat(got.getExtension("origin")).isEqualTo("urn:example:origin");
    assertThat(got.getExtension("seen")).isEqualTo("2026-01-02T03:04:05Z");
  }

  @Test
  void binaryDataTravelsAsBytesMessage() throws Exception {
    byte[] data = {0, (byte) 0xff, (byte) 0xc3, 0x28, 7};
    CloudEvent sent = fullEvent("application/octet-stream", data);

    Message message = codec.encode(SESSION, sent);

    assertThat(message).isInstanceOf(BytesMessage.class);
    assertThat(codec.decode(received(message), CHANNEL, InboundSettings.strict())).isEqualTo(sent);
  }

  @Test
  void timeKeepsItsZeroSecondsAsRfc3339() throws Exception {
    CloudEvent sent =
        CloudEventBuilder.v1()
            .withId("x")
            .withSource(URI.create("/s"))
            .withType("t")
            .withTime(java.time.OffsetDateTime.parse("2026-01-02T03:04:00Z"))
            .build();
    Message message = codec.encode(SESSION, sent);
    assertThat(message.getStringProperty("cloudEvents_time")).isEqualTo("2026-01-02T03:04:00Z");
    assertThat(codec.decode(received(message), CHANNEL, InboundSettings.strict()).getTime())
        .isEqualTo(sent.getTime());
  }

  /**
   * A plain JSON body is parsed once: its tree travels with the data, and its bytes are relayed
   * unchanged.
   */
  @Test
  void plainJsonBodyIsParsedOnceAndKeptByteForByte() throws Exception {
    ActiveMQTextMessage plain = new ActiveMQTextMessage();
    plain.setText("{ \"order\" : 42 }");
    CloudEvent e =
        codec.decode(
            plain, CHANNEL, new InboundSettings("com.example.order", null, java.util.Map.of()));
    assertThat(e.getData()).isInstanceOf(io.activityservice.channel.JsonBytesData.class);
    assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("{ \"order\" : 42 }");
    assertThat(
            ((io.activityservice.channel.JsonBytesData) e.getData()).getNode().get("order").asInt())
        .isEqualTo(42);
  }

  @Test
  void eventWithoutDataIsABodylessMessage() throws Exception {
    CloudEvent sent =
        CloudEventBuilder.v1().withId("x").withSource(URI.create("/s")).withType("t").build();

    Message message = codec.encode(SESSION, sent);

    assertThat(message).isNotInstanceOf(TextMessage.class).isNotInstanceOf(BytesMessage.class);
    assertThat(codec.decode(received(message), CHANNEL, InboundSettings.strict())).isEqualTo(sent);
  }

  @Test
  void binaryModeWithoutRequiredAttributeIsRejected() throws Exception {
    Message message =
        codec.encode(SESSION, fullEvent("text/plain", "hi".getBytes(StandardCharsets.UTF_8)));
    message.clearProperties();
    message.setStringProperty("cloudEvents_specversion", "1.0");
    message.setStringProperty("cloudEvents_id", "1");

    assertThatThrownBy(() -> codec.decode(message, CHANNEL, WRAP))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cloudEvents_source");
  }

  @Test
  void structuredJsonBodyIsAcceptedWithOrWithoutContentType() throws Exception {
    CloudEvent sent = fullEvent("application/json", "{\"a\":1}".getBytes(StandardCharsets.UTF_8));
    String json = new String(CloudEventJson.encode(sent), StandardCharsets.UTF_8);

    ActiveMQTextMessage typed = new ActiveMQTextMessage();
    typed.setText(json);
    typed.setStringProperty("contentType", "application/cloudevents+json; charset=utf-8");
    ActiveMQTextMessage untyped = new ActiveMQTextMessage();
    untyped.setText(json);

    for (Message m : new Message[] {typed, untyped}) {
      CloudEvent got = codec.decode(m, CHANNEL, InboundSettings.strict());
      assertThat(got.getId()).isEqualTo("id-1");
      assertThat(got.getExtension("sequence")).isEqualTo(42);
      assertThat(new String(got.getData().toBytes(), StandardCharsets.UTF_8))
          .isEqualToIgnoringWhitespace("{\"a\":1}");
    }
  }

  @Test
  void plainMessagesAreWrappedWithTheChannelDefaults() throws Exception {
    ActiveMQTextMessage json = new ActiveMQTextMessage();
    json.setText("{\"order\":42}");
    json.setJMSMessageID("ID:legacy-1");
    json.setJMSTimestamp(1_700_000_000_000L);
    ActiveMQTextMessage text = new ActiveMQTextMessage();
    text.setText("order 42 shipped");
    text.setJMSMessageID("ID:legacy-2");

    CloudEvent wrappedJson = codec.decode(json, CHANNEL, WRAP);
    CloudEvent wrappedText = codec.decode(text, CHANNEL, WRAP);

    assertThat(wrappedJson.getId()).isEqualTo("ID:legacy-1");
    assertThat(wrappedJson.getType()).isEqualTo("com.example.legacy");
    assertThat(wrappedJson.getSource()).isEqualTo(URI.create("/legacy/app"));
    assertThat(wrappedJson.getDataContentType()).isEqualTo("application/json");
    assertThat(wrappedJson.getTime().toInstant().toEpochMilli()).isEqualTo(1_700_000_000_000L);
    assertThat(new String(wrappedJson.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("{\"order\":42}");
    assertThat(wrappedText.getDataContentType()).isEqualTo("text/plain");
    assertThat(new String(wrappedText.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("order 42 shipped");
  }

  @Test
  void plainMessageKeepsItsOwnContentType() throws Exception {
    ActiveMQTextMessage xml = new ActiveMQTextMessage();
    xml.setText("<order/>");
    xml.setStringProperty("contentType", "application/xml");

    assertThat(codec.decode(xml, CHANNEL, WRAP).getDataContentType()).isEqualTo("application/xml");
  }

  @Test
  void plainMessageWithoutDefaultsOrUnsupportedBodyIsRejected() throws Exception {
    ActiveMQTextMessage text = new ActiveMQTextMessage();
    text.setText("not an event");
    assertThatThrownBy(() -> codec.decode(text, CHANNEL, InboundSettings.strict()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("defaultType");

    ActiveMQMapMessage map = new ActiveMQMapMessage();
    map.setString("k", "v");
    assertThatThrownBy(() -> codec.decode(map, CHANNEL, WRAP))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only text, bytes");
  }
}
