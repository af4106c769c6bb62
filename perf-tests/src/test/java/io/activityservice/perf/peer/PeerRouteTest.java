package io.activityservice.perf.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Camel routes the suite asks for: the same kind of source the service consumes, a plain
 * relay's options.
 */
class PeerRouteTest {

  @Test
  void jmsConsumesTheVirtualTopicsConsumerQueueTransactedAndSendsToTheTopic() {
    PeerRoute r =
        PeerRoute.of("CT2", "jms:topic:perf.r1.ct2.in", "jms:topic:perf.r1.ct2.out", null);
    assertEquals(
        "jms:queue:Consumer.camel.perf.r1.ct2.in?transacted=true&lazyCreateTransactionManager=false"
            + "&cacheLevelName=CACHE_CONSUMER&concurrentConsumers=4&maxConcurrentConsumers=4",
        r.from());
    assertEquals("jms:topic:perf.r1.ct2.out", r.to());
    assertFalse(r.structured());
  }

  @Test
  void sqsIsABatchConsumerAndJmsToSqsWritesStructuredEvents() {
    PeerRoute sqs = PeerRoute.of("CT4", "sqs:perf-r1-ct4-in", "sqs:perf-r1-ct4-out", null);
    assertTrue(
        sqs.from()
            .startsWith("aws2-sqs://perf-r1-ct4-in?maxMessagesPerPoll=10&deleteAfterRead=true"),
        sqs.from());
    assertTrue(sqs.from().endsWith("&concurrentConsumers=4"), sqs.from());
    assertFalse(sqs.structured());
    assertTrue(PeerRoute.of("CT5", "jms:topic:a", "sqs:b", null).structured());
    PeerRoute kafka = PeerRoute.of("CK2", "kafka:a", "kafka:b", "localhost:9092");
    assertEquals(
        "kafka:a?brokers=localhost:9092&groupId=camel-peer&autoOffsetReset=earliest&batching=true"
            + "&batchingIntervalMs=10&pollTimeoutMs=20",
        kafka.from());
    assertEquals(
        "kafka:b?brokers=localhost:9092&lingerMs=0&batchWithIndividualHeaders=true", kafka.to());
  }

  @Test
  void routesBecomeSpringBootArguments() {
    assertEquals(
        List.of(
            "--peer.routes[0].id=CT5",
            "--peer.routes[0].from=x",
            "--peer.routes[0].to=y",
            "--peer.routes[0].structured=true"),
        PeerRoute.arguments(List.of(new PeerRoute("CT5", "x", "y", true))));
  }
}
