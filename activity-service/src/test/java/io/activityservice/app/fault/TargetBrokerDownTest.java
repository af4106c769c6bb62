package io.activityservice.app.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.support.Api;
import io.activityservice.app.support.WebhookReceiver;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The target channel's broker is stopped: deliveries are retried, then dead-lettered with the
 * reason to a channel on another transport; once the broker is back, delivery resumes without a
 * restart.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class TargetBrokerDownTest {

  static Path brokerDir;
  static EmbeddedActiveMqBroker broker;
  static final WebhookReceiver deadLetters = new WebhookReceiver();

  @DynamicPropertySource
  static void jms(DynamicPropertyRegistry registry) throws Exception {
    brokerDir = Files.createTempDirectory("broker-down");
    broker = EmbeddedActiveMqBroker.start("127.0.0.1", 0, brokerDir.toFile(), true);
    registry.add("activity.channels.jms.broker-url", () -> broker.connectUri().toString());
    registry.add("activity.channels.jms.send-timeout", () -> "1s");
  }

  @AfterAll
  static void stop() {
    broker.close();
    deadLetters.close();
  }

  @LocalServerPort int port;

  @Test
  void retriesThenDeadLettersThenRecovers() {
    Api api = new Api(port);
    String sub =
        api.postJson(
                "/api/v1/subscriptions",
                """
        {"name": "to jms", "pattern": {"type": ["com.example.down"]}, "target": "jms:queue:down.out",
         "retry": {"maxAttempts": 3, "initialBackoff": "PT0.1S", "maxBackoff": "PT0.2S"},
         "deadLetter": "%s"}"""
                    .formatted(deadLetters.url("/dlq")))
            .json()
            .get("id")
            .asText();
    int brokerPort = broker.port();
    broker.close();

    assertThat(api.publish(event("while-down")).status()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(60)).until(() -> deadLetters.calls("/dlq").size() == 1);
    String dead = deadLetters.calls("/dlq").get(0).body();
    assertThat(dead)
        .contains("\"id\":\"while-down\"")
        .contains("\"deadletterattempts\":3")
        .contains("\"deadlettersubscription\":\"" + sub + "\"")
        .contains("\"deadlettertarget\":\"jms:queue:down.out\"")
        .contains("deadletterreason");

    broker = EmbeddedActiveMqBroker.start("127.0.0.1", brokerPort, brokerDir.toFile(), true);
    List<String> received = new CopyOnWriteArrayList<>();
    try (JmsChannelAdapter client =
            new JmsChannelAdapter(JmsChannelProperties.forBroker(broker.connectUri().toString()));
        InboundChannel in =
            client.openInbound(
                ChannelUri.parse("jms:queue:down.out"),
                InboundSettings.strict(),
                (event, ack) -> {
                  received.add(event.getId());
                  ack.ack();
                })) {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                api.publish(event("after-" + System.nanoTime()));
                return !received.isEmpty();
              });
      assertThat(received).allMatch(id -> id.startsWith("after-"));
    }
  }

  private static String event(String id) {
    return "{\"specversion\": \"1.0\", \"id\": \""
        + id
        + "\", \"source\": \"/down\", \"type\": \"com.example.down\"}";
  }
}
