package io.activityservice.app.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.support.Api;
import io.activityservice.app.support.PackagedService;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.activityservice.channel.sqs.LocalStackSqs;
import io.activityservice.channel.sqs.SqsChannelAdapter;
import io.activityservice.testsupport.ServiceProcess;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged service is SIGKILLed while it relays a stream from an SQS queue to another SQS queue
 * (LocalStack), with received batches in every stage: being routed, sent to the target, acked and
 * waiting for their DeleteMessageBatch. After a restart on the same database, every event SQS
 * accepted from the producer reaches the target queue.
 *
 * <p>Duplicates are expected only for messages the killed service had received and not yet deleted:
 * those in flight (at most {@code max-in-flight}, whether or not their send to the target went out)
 * and those acked whose delete had not been answered (at most {@code max-batch-requests-in-flight}
 * × 10 in flight plus one batch of 10 waiting for the delete linger). They come back after the
 * visibility timeout and are relayed again (the service's duplicate filter lives in memory and died
 * with it).
 */
class SqsServiceKilledMidBatchIT {

  static final int EVENTS = 5_000;
  static final int MAX_IN_FLIGHT = 100;
  static final int DELETE_REQUESTS_IN_FLIGHT = 8;

  /** What may come twice: see the class comment. */
  static final int MAX_DUPLICATES = MAX_IN_FLIGHT + DELETE_REQUESTS_IN_FLIGHT * 10 + 10;

  @TempDir Path dir;

  @Test
  void everyEventSqsAcceptedArrivesAfterAKillMidBatch() throws Exception {
    URI localstack = LocalStackSqs.endpoint();
    String run = UUID.randomUUID().toString().substring(0, 8);
    ChannelUri in = ChannelUri.parse("sqs:kill-in-" + run);
    ChannelUri out = ChannelUri.parse("sqs:kill-out-" + run);
    String type = "com.example.sqskill." + run;
    try (EmbeddedActiveMqBroker broker =
            EmbeddedActiveMqBroker.start("127.0.0.1", 0, dir.resolve("broker").toFile(), true);
        SqsChannelAdapter sqs = PackagedService.localStackClient(localstack)) {
      String inUrl = sqs.queueUrl(in).join();
      String outUrl = sqs.queueUrl(out).join();
      List<String> args =
          PackagedService.concat(
              List.of(
                  "--activity.channels.jms.broker-url=" + broker.connectUri(),
                  "--spring.datasource.url=jdbc:h2:file:" + dir.resolve("db/activity"),
                  "--activity.inbound[0].uri=" + in,
                  "--activity.routing.dead-letter=",
                  "--activity.channels.sqs.max-in-flight=" + MAX_IN_FLIGHT,
                  "--activity.channels.sqs.max-batch-requests-in-flight="
                      + DELETE_REQUESTS_IN_FLIGHT,
                  // Messages the killed service held come back 5 s after their receive (or last
                  // extension).
                  "--activity.channels.sqs.visibility-timeout=5s"),
              PackagedService.localStackSqsArgs(localstack));
      Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
      try (ServiceProcess service = PackagedService.process(dir.resolve("service.log"), args);
          InboundChannel receiver =
              sqs.openInbound(
                  out,
                  InboundSettings.strict(),
                  (event, ack) -> {
                    received
                        .computeIfAbsent(event.getId(), k -> new AtomicInteger())
                        .incrementAndGet();
                    ack.ack();
                  });
          OutboundChannel producer = sqs.openOutbound(in)) {
        service.start(PackagedService.START);
        assertThat(
                new Api(service.port())
                    .postJson(
                        "/api/v1/subscriptions",
                        """
            {"name": "sqs kill", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                            .formatted(type, out))
                    .status())
            .isEqualTo(201);

        Set<String> accepted = ConcurrentHashMap.newKeySet();
        CompletableFuture<Void> sending =
            CompletableFuture.runAsync(() -> sendAll(producer, run, type, accepted));
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> received.size() >= 1000);
        service.kill();
        int beforeRestart = received.size();
        int acceptedAtKill = accepted.size();
        assertThat(beforeRestart).as("killed mid-stream").isLessThan(EVENTS);

        service.start(PackagedService.START);
        sending.get(180, TimeUnit.SECONDS);
        try {
          await()
              .atMost(Duration.ofSeconds(180))
              .pollInterval(Duration.ofMillis(250))
              .until(() -> received.keySet().containsAll(accepted));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          Files.copy(
              dir.resolve("service.log"),
              Path.of("target/sqs-kill-service.log"),
              StandardCopyOption.REPLACE_EXISTING);
        }
        // Whatever still comes is a duplicate: count it too, over more than one visibility timeout.
        await()
            .during(Duration.ofSeconds(7))
            .atMost(Duration.ofSeconds(10))
            .until(() -> received.keySet().containsAll(accepted));
        long lost = accepted.stream().filter(id -> !received.containsKey(id)).count();
        long duplicates = received.values().stream().filter(n -> n.get() > 1).count();
        System.out.printf(
            "sqs kill test: %d events accepted by SQS (%d when the service was killed, %d relayed by"
                + " then); %d lost, %d duplicates (bound %d), %d received in all; input queue: %s%n",
            accepted.size(),
            acceptedAtKill,
            beforeRestart,
            lost,
            duplicates,
            MAX_DUPLICATES,
            received.size(),
            queueDepth(sqs, inUrl));
        assertThat(accepted).as("SQS accepted every send").hasSize(EVENTS);
        assertThat(lost).as("accepted events lost").isZero();
        assertThat(received.keySet()).as("nothing but the events sent").isSubsetOf(accepted);
        assertThat(duplicates)
            .as("duplicates are bounded by what the killed service held")
            .isLessThanOrEqualTo(MAX_DUPLICATES);
      } finally {
        for (String url : List.of(inUrl, outUrl)) {
          sqs.client().deleteQueue(r -> r.queueUrl(url)).exceptionally(e -> null).join();
        }
      }
    }
  }

  /**
   * Sends the events in chunks of 500, like a producer that waits for SQS's confirms; records
   * accepted ids.
   */
  private static void sendAll(
      OutboundChannel producer, String run, String type, Set<String> accepted) {
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      CloudEvent e =
          CloudEventBuilder.v1()
              .withId(run + "-" + i)
              .withSource(URI.create("/sqskill"))
              .withType(type)
              .withDataContentType("application/json")
              .withData(
                  ("{\"n\":" + i + ",\"pad\":\"" + "x".repeat(200) + "\"}")
                      .getBytes(StandardCharsets.UTF_8))
              .build();
      sends.add(producer.send(e).thenRun(() -> accepted.add(e.getId())));
      if (sends.size() == 500) {
        join(sends);
      }
    }
    join(sends);
  }

  private static void join(List<CompletableFuture<Void>> sends) {
    try {
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new CompletionException(e);
    }
    sends.clear();
  }

  private static String queueDepth(SqsChannelAdapter sqs, String url) {
    return sqs.client()
        .getQueueAttributes(
            r ->
                r.queueUrl(url)
                    .attributeNamesWithStrings(
                        "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"))
        .join()
        .attributesAsStrings()
        .toString();
  }
}
