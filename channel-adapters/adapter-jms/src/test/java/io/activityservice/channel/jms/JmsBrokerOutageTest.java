package io.activityservice.channel.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.File;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Broker stops and restarts: sends fail within the send timeout, channels resume on their own. */
class JmsBrokerOutageTest {

  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(2);

  private static CloudEvent event() {
    return CloudEventBuilder.v1()
        .withId(UUID.randomUUID().toString())
        .withSource(URI.create("/outage"))
        .withType("com.example.outage")
        .withData("text/plain", "x".getBytes())
        .build();
  }

  private static JmsChannelProperties properties(EmbeddedActiveMqBroker broker) {
    return JmsChannelProperties.builder()
        .brokerUrl(TestBrokers.tcpUrl(broker))
        .sendTimeout(SEND_TIMEOUT)
        .reconnectDelay(Duration.ofMillis(300))
        .build();
  }

  @Test
  void sendFailsWithinTheSendTimeoutWhileTheBrokerIsDown() throws Exception {
    EmbeddedActiveMqBroker broker = TestBrokers.inMemory();
    try (JmsChannelAdapter adapter = new JmsChannelAdapter(properties(broker))) {
      ChannelUri uri = ChannelUri.parse("jms:queue:outage");
      OutboundChannel persistent = adapter.openOutbound(uri);
      OutboundChannel fast =
          adapter.openOutbound(ChannelUri.parse("jms:queue:outage?persistent=false"));
      persistent.send(event()).get(10, TimeUnit.SECONDS);
      fast.send(event()).get(10, TimeUnit.SECONDS);

      broker.close();

      long start = System.nanoTime();
      CompletableFuture<Void> down = persistent.send(event());
      CompletableFuture<Void> downFast = fast.send(event());
      assertThat(down).failsWithin(Duration.ofSeconds(10));
      assertThat(downFast).failsWithin(Duration.ofSeconds(10));
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isLessThan(SEND_TIMEOUT.plusSeconds(3));
    }
  }

  @Test
  void channelsResumeAfterABrokerRestart() throws Exception {
    File dataDir = TestBrokers.tempDir();
    EmbeddedActiveMqBroker broker = EmbeddedActiveMqBroker.start("127.0.0.1", 0, dataDir, true);
    int port = broker.port();
    Set<String> received = ConcurrentHashMap.newKeySet();
    try (JmsChannelAdapter adapter = new JmsChannelAdapter(properties(broker))) {
      ChannelUri uri = ChannelUri.parse("jms:topic:restart.events");
      adapter.openInbound(
          uri,
          InboundSettings.strict(),
          (e, ack) -> {
            received.add(e.getId());
            ack.ack();
          });
      OutboundChannel out = adapter.openOutbound(uri);
      CloudEvent before = event();
      out.send(before).get(10, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(30)).until(() -> received.contains(before.getId()));

      broker.close();
      broker = EmbeddedActiveMqBroker.start("127.0.0.1", port, dataDir, true);

      CloudEvent after = event();
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> out.send(after).handle((ok, error) -> error == null).get());
      await().atMost(Duration.ofSeconds(60)).until(() -> received.contains(after.getId()));
    } finally {
      broker.close();
    }
  }
}
