package io.activityservice.app.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.WebhookReceiver;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.activityservice.channel.sqs.LocalStackSqs;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Transformations and delivery formats end to end, on real servers: an ActiveMQ broker over TCP
 * read by a bare {@code MessageListener}, LocalStack SQS read with the SDK's {@code
 * receiveMessage}, an embedded Kafka broker read by a plain {@code KafkaConsumer}, and a local HTTP
 * server as a partner's webhook. Events are published over REST.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.cloud.stream.kafka.binder.brokers=${spring.embedded.kafka.brokers}",
      "activity.channels.sqs.embedded.enabled=false"
    })
@EmbeddedKafka(partitions = 1)
class TransformedDeliveryApiTest {

  static final ObjectMapper JSON = new ObjectMapper();
  static EmbeddedActiveMqBroker broker;
  static final WebhookReceiver partner = new WebhookReceiver();

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) throws Exception {
    broker =
        EmbeddedActiveMqBroker.start(
            "127.0.0.1", 0, Files.createTempDirectory("transform-broker").toFile(), false);
    registry.add("activity.channels.jms.broker-url", () -> broker.connectUri().toString());
    URI endpoint = LocalStackSqs.endpoint();
    registry.add("activity.channels.sqs.endpoint", endpoint::toString);
    registry.add("activity.channels.sqs.region", () -> "us-east-1");
    registry.add("activity.channels.sqs.access-key", () -> "test");
    registry.add("activity.channels.sqs.secret-key", () -> "test");
    registry.add("activity.channels.sqs.wait-time", () -> "1s");
  }

  @AfterAll
  static void stop() {
    broker.close();
    partner.close();
  }

  @LocalServerPort int port;

  @Value("${spring.embedded.kafka.brokers}")
  String kafkaBrokers;

  private static String run() {
    return UUID.randomUUID().toString().substring(0, 8);
  }

  private Api.Response subscribe(String type, String target, String transformAndFormat) {
    return new Api(port)
        .postJson(
            "/api/v1/subscriptions",
            """
            {"name": "t-%s", "pattern": {"type": ["%s"]}, "target": "%s"%s}"""
                .formatted(type, type, target, transformAndFormat));
  }

  private void publishOrder(String type, String id) {
    Api.Response r =
        new Api(port)
            .publish(
                """
                {"specversion":"1.0","id":"%s","source":"/shop","type":"%s","subject":"order",
                 "datacontenttype":"application/json",
                 "data":{"orderId":"%s","total":42.5,"items":[{"sku":"a"},{"sku":"b"}]}}"""
                    .formatted(id, type, id));
    assertThat(r.status()).as(r.body()).isBetween(200, 299);
  }

  private static final String PARTNER_TRANSFORM =
      """
      , "transform": {"data": "{'ref': data.orderId, 'amount': data.total, 'lines': $count(data.items)}"},
        "format": "data\"""";

  @Test
  void aPlainJmsListenerReceivesOnlyTheTransformedJsonBody() throws Exception {
    String run = run();
    String type = "com.example.order." + run;
    String queue = "legacy.orders." + run;
    List<Message> received = new CopyOnWriteArrayList<>();
    ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(broker.connectUri());
    try (Connection connection = factory.createConnection()) {
      Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
      MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
      consumer.setMessageListener(received::add); // a bare MessageListener, as a legacy consumer
      connection.start();
      Api.Response created = subscribe(type, "jms:queue:" + queue, PARTNER_TRANSFORM);
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      assertThat(created.json().path("format").asText()).isEqualTo("data");

      publishOrder(type, "o-" + run);

      await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == 1);
      Message m = received.get(0);
      assertThat(m).isInstanceOf(TextMessage.class);
      assertThat(JSON.readTree(((TextMessage) m).getText()))
          .isEqualTo(JSON.readTree("{\"ref\":\"o-" + run + "\",\"amount\":42.5,\"lines\":2}"));
      List<String> properties = new ArrayList<>();
      for (Object name : Collections.list(m.getPropertyNames())) {
        properties.add((String) name);
      }
      assertThat(properties).noneMatch(p -> p.startsWith("cloudEvents_"));
      assertThat(m.getStringProperty("contentType")).isEqualTo("application/json");
    }
  }

  @Test
  void anSqsConsumerReceivesTheRawData() throws Exception {
    String run = run();
    String type = "com.example.raw." + run;
    String queue = "raw-data-" + run;
    try (SqsAsyncClient sqs = sqs()) {
      String url = sqs.createQueue(b -> b.queueName(queue)).join().queueUrl();
      Api.Response created = subscribe(type, "sqs:" + queue, ", \"format\": \"data\"");
      assertThat(created.status()).as(created.body()).isEqualTo(201);

      publishOrder(type, "r-" + run);

      List<String> bodies = new CopyOnWriteArrayList<>();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                sqs.receiveMessage(
                        b ->
                            b.queueUrl(url)
                                .waitTimeSeconds(1)
                                .maxNumberOfMessages(10)
                                .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                    .join()
                    .messages()
                    .forEach(msg -> bodies.add(msg.body()));
                return !bodies.isEmpty();
              });
      assertThat(JSON.readTree(bodies.get(0)))
          .isEqualTo(
              JSON.readTree(
                  "{\"orderId\":\"r-"
                      + run
                      + "\",\"total\":42.5,\"items\":[{\"sku\":\"a\"},{\"sku\":\"b\"}]}"));
      assertThat(JSON.readTree(bodies.get(0)).has("specversion")).isFalse();
    }
  }

  @Test
  void aWebhookReceivesAPartnersFixedSchema() throws Exception {
    String run = run();
    String type = "com.example.partner." + run;
    String path = "/partner/" + run;
    Api.Response created =
        subscribe(
            type,
            partner.url(path),
            """
            , "transform": {"data": "{'event': 'ORDER_PLACED', 'payload': {'reference': data.orderId, 'value': {'amount': data.total, 'currency': 'EUR'}}, 'sentAt': time}"},
              "format": "data\"""");
    assertThat(created.status()).as(created.body()).isEqualTo(201);

    publishOrder(type, "p-" + run);

    await().atMost(Duration.ofSeconds(30)).until(() -> partner.calls(path).size() == 1);
    WebhookReceiver.Call call = partner.calls(path).get(0);
    assertThat(call.contentType()).startsWith("application/json");
    JsonNode body = JSON.readTree(call.body());
    assertThat(body.path("event").asText()).isEqualTo("ORDER_PLACED");
    assertThat(body.path("payload"))
        .isEqualTo(
            JSON.readTree(
                "{\"reference\":\"p-"
                    + run
                    + "\",\"value\":{\"amount\":42.5,\"currency\":\"EUR\"}}"));
    assertThat(body.path("sentAt").asText()).isNotBlank();
    assertThat(body.has("specversion")).isFalse();
  }

  /**
   * The HTTP binding's binary mode: the data as the body, the attributes as percent-encoded {@code
   * ce-*} headers; posted back to the service as they came, they give the same event again.
   */
  @Test
  void aWebhookInBinaryModeGetsCeHeadersThatTheServiceReadsBack() throws Exception {
    String run = run();
    String type = "com.example.binary." + run;
    String echo = type + ".echo";
    String path = "/binary/" + run;
    String echoPath = "/echo/" + run;
    assertThat(subscribe(type, partner.url(path), ", \"format\": \"binary\"").status())
        .isEqualTo(201);
    assertThat(subscribe(echo, partner.url(echoPath), "").status()).isEqualTo(201);
    Api.Response published =
        new Api(port)
            .publish(
                """
                {"specversion":"1.0","id":"b-%s","source":"/shop","type":"%s",
                 "subject":"Bestellung \\"7\\" zu 100%%","region":"eu west",
                 "datacontenttype":"application/json","data":{"orderId":"o-7"}}"""
                    .formatted(run, type));
    assertThat(published.status()).as(published.body()).isBetween(200, 299);

    await().atMost(Duration.ofSeconds(30)).until(() -> partner.calls(path).size() == 1);
    WebhookReceiver.Call call = partner.calls(path).get(0);
    assertThat(call.contentType()).startsWith("application/json");
    assertThat(JSON.readTree(call.body())).isEqualTo(JSON.readTree("{\"orderId\":\"o-7\"}"));
    assertThat(call.header("ce-id")).isEqualTo("b-" + run);
    assertThat(call.header("ce-type")).isEqualTo(type);
    assertThat(call.header("ce-subject")).isEqualTo("Bestellung%20%227%22%20zu%20100%25");
    assertThat(call.header("ce-region")).isEqualTo("eu%20west");

    Map<String, String> back = new java.util.LinkedHashMap<>();
    call.headers()
        .forEach(
            (name, values) -> {
              if (name.startsWith("ce-")) {
                back.put(name, values.get(0));
              }
            });
    back.put("ce-type", echo);
    back.put("ce-id", "echo-" + run); // the same source and id would be dropped as a redelivery
    Api.Response again =
        new Api(port).post("/api/v1/events", call.contentType(), call.body(), back);
    assertThat(again.status()).as(again.body()).isBetween(200, 299);
    await().atMost(Duration.ofSeconds(30)).until(() -> partner.calls(echoPath).size() == 1);
    JsonNode echoed = JSON.readTree(partner.calls(echoPath).get(0).body());
    assertThat(echoed.path("subject").asText()).isEqualTo("Bestellung \"7\" zu 100%");
    assertThat(echoed.path("region").asText()).isEqualTo("eu west");
    assertThat(echoed.path("data")).isEqualTo(JSON.readTree("{\"orderId\":\"o-7\"}"));
  }

  @Test
  void aKafkaConsumerGetsTheValueOnly() throws Exception {
    String run = run();
    String type = "com.example.stream." + run;
    String topic = "legacy.stream." + run;
    Api.Response created = subscribe(type, "kafka:" + topic, PARTNER_TRANSFORM);
    assertThat(created.status()).as(created.body()).isEqualTo(201);

    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafkaBrokers,
                ConsumerConfig.GROUP_ID_CONFIG,
                "legacy-" + run,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      publishOrder(type, "k-" + run);
      List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
                return !records.isEmpty();
              });
      ConsumerRecord<byte[], byte[]> record = records.get(0);
      assertThat(JSON.readTree(new String(record.value(), StandardCharsets.UTF_8)))
          .isEqualTo(JSON.readTree("{\"ref\":\"k-" + run + "\",\"amount\":42.5,\"lines\":2}"));
      List<String> headers = new ArrayList<>();
      for (Header h : record.headers()) {
        headers.add(h.key());
      }
      assertThat(headers).noneMatch(h -> h.startsWith("ce_"));
    }
  }

  @Test
  void thePatternTesterPreviewsTheDeliveryWithHeadersAndBody() throws Exception {
    Api api = new Api(port);
    String event =
        """
        {"specversion":"1.0","id":"e-1","source":"/shop","type":"com.example.order",
         "datacontenttype":"application/json","data":{"orderId":"o-9","total":3}}""";
    Api.Response binary =
        api.postJson(
            "/api/v1/patterns/test",
            """
            {"pattern": {"type": ["com.example.order"]}, "event": %s, "target": "jms:queue:x",
             "transform": {"data": "{'ref': data.orderId}", "attributes": {"type": "'partner.order'"}},
             "format": "binary"}"""
                .formatted(event));
    assertThat(binary.status()).as(binary.body()).isEqualTo(200);
    JsonNode d = binary.json().path("delivery");
    assertThat(binary.json().path("matches").asBoolean()).isTrue();
    assertThat(d.path("headers").path("cloudEvents_type").asText()).isEqualTo("partner.order");
    assertThat(d.path("headers").path("cloudEvents_id").asText()).isEqualTo("e-1");
    assertThat(d.path("body").asText()).isEqualTo("{\"ref\":\"o-9\"}");
    assertThat(d.path("bodyEncoding").asText()).isEqualTo("text");

    Api.Response structured =
        api.postJson(
            "/api/v1/patterns/test",
            """
            {"event": %s, "target": "sqs:preview-q"}"""
                .formatted(event));
    assertThat(structured.status()).as(structured.body()).isEqualTo(200);
    assertThat(
            JSON.readTree(structured.json().path("delivery").path("body").asText())
                .path("id")
                .asText())
        .isEqualTo("e-1");

    Api.Response failing =
        api.postJson(
            "/api/v1/patterns/test",
            """
            {"event": %s, "target": "jms:queue:x",
             "transform": {"data": "($f := function($x){$f($x)}; $f(1))"}}"""
                .formatted(event));
    assertThat(failing.status()).as(failing.body()).isEqualTo(200);
    assertThat(failing.json().path("delivery").path("error").asText())
        .contains("transformation failed");
  }

  @Test
  void aBadExpressionIsA400NamingTheFieldAndPosition() {
    Api.Response r =
        subscribe(
            "com.example.bad." + run(),
            "jms:queue:never",
            ", \"transform\": {\"attributes\": {\"subject\": \"data.(\"}}");
    assertThat(r.status()).as(r.body()).isEqualTo(400);
    assertThat(r.contentType()).startsWith("application/problem+json");
    assertThat(r.json().path("field").asText()).isEqualTo("transform.attributes.subject");
    assertThat(r.body()).contains("position");

    Api.Response format =
        subscribe("com.example.bad." + run(), "sqs:never", ", \"format\": \"binary\"");
    assertThat(format.status()).as(format.body()).isEqualTo(400);
    assertThat(format.json().path("field").asText()).isEqualTo("format");
    Api.Response unknown =
        subscribe("com.example.bad." + run(), "sqs:never", ", \"format\": \"xml\"");
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.json().path("field").asText()).isEqualTo("format");
  }

  @Test
  void aHostileExpressionDeadLettersItsDeliveriesAndTheServiceStaysHealthy() throws Exception {
    String run = run();
    String type = "com.example.hostile." + run;
    String okPath = "/ok/" + run;
    Api api = new Api(port);
    Api.Response hostile =
        subscribe(
            type,
            partner.url("/hostile/" + run),
            ", \"transform\": {\"data\": \"($f := function($n){ $n <= 0 ? [] : [$f($n - 1), $f($n - 1)] }; $f(40))\"}");
    assertThat(hostile.status()).as(hostile.body()).isEqualTo(201);
    assertThat(subscribe(type, partner.url(okPath), "").status()).isEqualTo(201);
    String hostileId = hostile.json().path("id").asText();

    for (int i = 0; i < 5; i++) {
      publishOrder(type, "h-" + run + "-" + i);
    }

    await().atMost(Duration.ofSeconds(30)).until(() -> partner.calls(okPath).size() == 5);
    JsonNode page = api.get("/api/v1/dead-letters?subscription=" + hostileId + "&limit=100").json();
    assertThat(page.path("items")).hasSize(5);
    assertThat(page.path("items").get(0).path("reason").asText()).contains("transformation failed");
    assertThat(partner.calls("/hostile/" + run)).isEmpty();
    assertThat(api.get("/actuator/health").status()).isEqualTo(200);
  }

  @Test
  void aReplayIntoATransformingSubscriptionDeliversTransformedEvents() throws Exception {
    String run = run();
    String type = "com.example.replayed." + run;
    Api api = new Api(port);
    Api.Response archive =
        api.postJson(
            "/api/v1/archives",
            """
            {"name": "tf-%s", "pattern": {"type": ["%s"]}, "retention": "P7D"}"""
                .formatted(run, type));
    assertThat(archive.status()).as(archive.body()).isEqualTo(201);
    String t0 = "2026-11-20T08:00:00Z";
    for (int i = 0; i < 3; i++) {
      Api.Response r =
          api.publish(
              """
              {"specversion":"1.0","id":"rp-%s-%d","source":"/shop","type":"%s","time":"2026-11-20T08:00:0%dZ",
               "datacontenttype":"application/json","data":{"orderId":"o-%d","total":%d}}"""
                  .formatted(run, i, type, i, i, 10 * i));
      assertThat(r.status()).as(r.body()).isEqualTo(202);
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> api.get("/api/v1/archives/tf-" + run).json().path("eventCount").asInt() == 3);

    String path = "/replayed/" + run;
    Api.Response late =
        subscribe(
            type,
            partner.url(path),
            """
            , "transform": {"data": "{'ref': data.orderId, 'cents': data.total * 100}"}, "format": "data\"""");
    assertThat(late.status()).as(late.body()).isEqualTo(201);
    Api.Response replay =
        api.postJson(
            "/api/v1/replays",
            """
            {"name": "tf-rp-%s", "archive": "tf-%s", "from": "%s", "to": "2026-11-20T09:00:00Z",
             "destinations": {"subscriptions": ["%s"], "detectors": [], "rules": []}}"""
                .formatted(run, run, t0, late.json().path("id").asText()));
    assertThat(replay.status()).as(replay.body()).isEqualTo(201);

    await().atMost(Duration.ofSeconds(30)).until(() -> partner.calls(path).size() == 3);
    List<JsonNode> bodies = new ArrayList<>();
    for (WebhookReceiver.Call c : partner.calls(path)) {
      bodies.add(JSON.readTree(c.body()));
    }
    assertThat(bodies)
        .containsExactlyInAnyOrder(
            JSON.readTree("{\"ref\":\"o-0\",\"cents\":0}"),
            JSON.readTree("{\"ref\":\"o-1\",\"cents\":1000}"),
            JSON.readTree("{\"ref\":\"o-2\",\"cents\":2000}"));
  }

  static SqsAsyncClient sqs() {
    return SqsAsyncClient.builder()
        .endpointOverride(LocalStackSqs.endpoint())
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .build();
  }
}
