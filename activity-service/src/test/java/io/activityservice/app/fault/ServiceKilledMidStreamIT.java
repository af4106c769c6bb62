package io.activityservice.app.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.support.Api;
import io.activityservice.app.support.PackagedService;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.activityservice.testsupport.ServiceProcess;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
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
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service process is SIGKILLed while it relays a stream from a JMS queue to another JMS queue,
 * then restarted on the same database: every event whose send the broker confirmed must still reach
 * the target.
 *
 * <p>The service's JMS inbound channel acknowledges in transactions (see adapter-jms README): a
 * session hands each message of a batch to the router at once and commits the batch when all of it
 * is delivered or parked. A kill before that commit brings the whole batch back, events already
 * delivered included, so duplicates are expected, and bounded: at most {@code max-in-flight}
 * messages of a channel are received and not committed (the dedup window is in memory and does not
 * survive the kill).
 *
 * <p>Two streams: one as fast as the producer goes (events committed chunk by chunk), and one paced
 * at about 2,000 events/s with long-lingering batches ({@code batch.size=500}, {@code
 * batch.linger=1s}), so that at the kill both sessions hold open batches whose events were already
 * delivered: those come again (duplicates observed, at most {@code max-in-flight}) and nothing is
 * lost.
 */
class ServiceKilledMidStreamIT {

  static final int EVENTS = 10_000;
  static final int MAX_IN_FLIGHT = 200;

  @TempDir Path dir;

  @Test
  void everyEventIsDeliveredAfterAKillAndRestart() throws Exception {
    Result r = killMidStream(EVENTS, MAX_IN_FLIGHT, 100, Duration.ofMillis(10), 1000, i -> false);
    System.out.printf(
        "kill test (fast stream, batches of up to 100): %d of %d delivered before the kill,"
            + " %d duplicates after restart%n",
        r.beforeRestart(), EVENTS, r.duplicates());
    assertThat(r.duplicates())
        .as("duplicates are bounded by the in-flight window")
        .isLessThanOrEqualTo(MAX_IN_FLIGHT);
  }

  @Test
  void batchesOpenAtTheKillComeBackWholeAndNothingAcknowledgedIsLost() throws Exception {
    int events = 8_000;
    int maxInFlight = 1_000;
    // 20 events every 10 ms: ~2,000 events/s, so each of the two sessions fills a batch of 500 in
    // ~0.5 s. The kill
    // comes at 2,250 received, a quarter into the third batch of each session (at a multiple of
    // 1,000 both sessions
    // would just have committed full batches).
    Result r =
        killMidStream(events, maxInFlight, 500, Duration.ofSeconds(1), 2_250, i -> i % 20 == 19);
    System.out.printf(
        "kill test (paced stream, batches of up to 500 lingering 1 s): %d of %d delivered before the"
            + " kill, %d duplicates after restart (events delivered in batches not yet committed)%n",
        r.beforeRestart(), events, r.duplicates());
    assertThat(r.duplicates())
        .as("the kill hit open batches: their delivered events came again")
        .isPositive()
        .isLessThanOrEqualTo(maxInFlight);
  }

  record Result(int beforeRestart, long duplicates) {}

  /**
   * Starts the service, streams {@code events} to its inbound queue, SIGKILLs it once {@code
   * killAfter} have arrived at the target, restarts it and checks that every event the broker
   * confirmed arrives.
   *
   * @param pauseAfter after which event index the producer pauses 10 ms (pacing)
   */
  private Result killMidStream(
      int events,
      int maxInFlight,
      int batchSize,
      Duration linger,
      int killAfter,
      IntPredicate pauseAfter)
      throws Exception {
    try (EmbeddedActiveMqBroker broker =
            EmbeddedActiveMqBroker.start("127.0.0.1", 0, dir.resolve("broker").toFile(), true);
        JmsChannelAdapter client =
            new JmsChannelAdapter(
                JmsChannelProperties.builder()
                    .brokerUrl(broker.connectUri().toString())
                    .sendTimeout(Duration.ofSeconds(60))
                    .reconnectDelay(Duration.ofSeconds(1))
                    .build())) {
      List<String> args =
          List.of(
              "--activity.channels.jms.broker-url=" + broker.connectUri(),
              "--activity.channels.jms.max-in-flight=" + maxInFlight,
              "--activity.channels.jms.batch.size=" + batchSize,
              "--activity.channels.jms.batch.linger=" + linger.toMillis() + "ms",
              "--spring.datasource.url=jdbc:h2:file:" + dir.resolve("db/activity"),
              "--activity.inbound[0].uri=jms:queue:fault.in",
              "--activity.routing.dead-letter=",
              "--activity.channels.sqs.embedded.enabled=false",
              "--activity.channels.sqs.enabled=false");
      ChannelUri in = ChannelUri.parse("jms:queue:fault.in");
      ChannelUri out = ChannelUri.parse("jms:queue:fault.out");
      Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
      try (ServiceProcess service = PackagedService.process(dir.resolve("service.log"), args);
          InboundChannel receiver =
              client.openInbound(
                  out,
                  InboundSettings.strict(),
                  (event, ack) -> {
                    received
                        .computeIfAbsent(event.getId(), k -> new AtomicInteger())
                        .incrementAndGet();
                    ack.ack();
                  });
          OutboundChannel producer = client.openOutbound(in)) {
        service.start(PackagedService.START);
        Api api = new Api(service.port());
        assertThat(
                api.postJson(
                        "/api/v1/subscriptions",
                        "{\"name\": \"fault\", \"pattern\": {\"type\": [\"com.example.fault\"]}, \"target\": \""
                            + out
                            + "\"}")
                    .status())
            .isEqualTo(201);

        Set<String> confirmed = ConcurrentHashMap.newKeySet();
        CompletableFuture<Integer> sending =
            CompletableFuture.supplyAsync(() -> sendAll(producer, events, pauseAfter, confirmed));
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(5))
            .until(() -> received.size() >= killAfter);
        service.kill();
        int beforeRestart = received.size();
        assertThat(beforeRestart).as("killed mid-stream").isLessThan(events);

        service.start(PackagedService.START);
        int sent = sending.get(120, TimeUnit.SECONDS);
        assertThat(confirmed).as("every send confirmed by the broker").hasSize(sent);
        await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> received.keySet().containsAll(confirmed));
        assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(confirmed);
        long duplicates =
            received.values().stream().mapToInt(AtomicInteger::get).filter(c -> c > 1).count();
        return new Result(beforeRestart, duplicates);
      }
    }
  }

  /**
   * Sends {@code events} events, adding the id of each send the broker confirmed to {@code
   * confirmed}.
   */
  private static int sendAll(
      OutboundChannel producer, int events, IntPredicate pauseAfter, Set<String> confirmed) {
    try {
      List<CompletableFuture<Void>> sends = new ArrayList<>();
      for (int i = 0; i < events; i++) {
        CloudEvent e =
            CloudEventBuilder.v1()
                .withId("fault-" + i)
                .withSource(URI.create("/fault"))
                .withType("com.example.fault")
                .withDataContentType("application/json")
                .withData(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                .build();
        sends.add(producer.send(e).thenRun(() -> confirmed.add(e.getId())));
        if (sends.size() == 500) {
          // Like a real producer: wait for the broker's confirms chunk by chunk.
          CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
              .get(60, TimeUnit.SECONDS);
          sends.clear();
        }
        if (pauseAfter.test(i)) {
          Thread.sleep(10);
        }
      }
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      return events;
    } catch (Exception e) {
      throw new java.util.concurrent.CompletionException(e);
    }
  }
}
