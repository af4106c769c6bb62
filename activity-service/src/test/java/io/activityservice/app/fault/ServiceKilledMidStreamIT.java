package io.activityservice.app.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.support.Api;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.jms.EmbeddedActiveMqBroker;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service process is SIGKILLed while it routes a stream from a JMS queue to another JMS queue,
 * then restarted on the same database: every inbound event must still reach the target. Duplicates are
 * allowed only for messages that were in flight at the kill (bounded by the inbound channel's window).
 */
class ServiceKilledMidStreamIT {

  static final int EVENTS = 10_000;
  static final int MAX_IN_FLIGHT = 200;

  @TempDir
  Path dir;

  @Test
  void everyEventIsDeliveredAfterAKillAndRestart() throws Exception {
    Path jar = Path.of(System.getProperty("service.jar", "target/activity-service-0.1.0-SNAPSHOT.jar"));
    assertThat(jar).exists();
    try (EmbeddedActiveMqBroker broker = EmbeddedActiveMqBroker.start("127.0.0.1", 0, dir.resolve("broker").toFile(), true);
         JmsChannelAdapter client = new JmsChannelAdapter(JmsChannelProperties.forBroker(broker.connectUri().toString())
             .withTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(1)))) {
      int port = freePort();
      List<String> args = List.of(
          "--activity.channels.jms.broker-url=" + broker.connectUri(),
          "--activity.channels.jms.max-in-flight=" + MAX_IN_FLIGHT,
          "--spring.datasource.url=jdbc:h2:file:" + dir.resolve("db/activity"),
          "--activity.inbound[0].uri=jms:queue:fault.in",
          "--activity.routing.dead-letter=",
          "--activity.channels.sqs.embedded.enabled=false",
          "--activity.channels.sqs.enabled=false");
      ChannelUri in = ChannelUri.parse("jms:queue:fault.in");
      ChannelUri out = ChannelUri.parse("jms:queue:fault.out");
      Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
      try (ServiceProcess service = new ServiceProcess(jar, port, dir.resolve("service.log"), args);
           InboundChannel receiver = client.openInbound(out, InboundSettings.strict(), (event, ack) -> {
             received.computeIfAbsent(event.getId(), k -> new AtomicInteger()).incrementAndGet();
             ack.ack();
           });
           OutboundChannel producer = client.openOutbound(in)) {
        service.start(Duration.ofSeconds(120));
        Api api = new Api(port);
        assertThat(api.postJson("/api/v1/subscriptions",
            "{\"name\": \"fault\", \"pattern\": {\"type\": [\"com.example.fault\"]}, \"target\": \"" + out + "\"}")
            .status()).isEqualTo(201);

        CompletableFuture<List<String>> sending = CompletableFuture.supplyAsync(() -> sendAll(producer));
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> received.size() >= 1000);
        service.kill();
        int beforeRestart = received.size();
        assertThat(beforeRestart).as("killed mid-stream").isLessThan(EVENTS);

        service.start(Duration.ofSeconds(120));
        List<String> ids = sending.get(120, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(120)).until(() -> received.size() >= EVENTS);
        assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        long duplicates = received.values().stream().mapToInt(AtomicInteger::get).filter(c -> c > 1).count();
        System.out.printf("kill test: %d of %d delivered before the kill, %d duplicates after restart%n",
            beforeRestart, EVENTS, duplicates);
        assertThat(duplicates).as("duplicates are bounded by the in-flight window").isLessThanOrEqualTo(MAX_IN_FLIGHT);
      }
    }
  }

  private static List<String> sendAll(OutboundChannel producer) {
    try {
      return sendChunked(producer);
    } catch (Exception e) {
      throw new java.util.concurrent.CompletionException(e);
    }
  }

  private static List<String> sendChunked(OutboundChannel producer) throws Exception {
    List<String> ids = new ArrayList<>();
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      CloudEvent e = CloudEventBuilder.v1().withId("fault-" + i).withSource(URI.create("/fault"))
          .withType("com.example.fault").withDataContentType("application/json")
          .withData(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)).build();
      ids.add(e.getId());
      sends.add(producer.send(e));
      if (sends.size() == 500) {
        // Like a real producer: wait for the broker's confirms chunk by chunk.
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        sends.clear();
      }
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    return ids;
  }

  private static int freePort() throws java.io.IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
