package io.activityservice.perf;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TestbedTest {

  @Test
  void kafkaBrokerThreadsAreToldFromClientThreadsByName() {
    for (String broker :
        new String[] {
          "data-plane-kafka-request-handler-3",
          "kafka-scheduler-7",
          "kafka-0-raft-io-thread",
          "broker-0-lifecycle-manager-event-handler",
          "controller-0-ThrottledChannelReaper-Fetch",
          "quorum-controller-0-event-handler",
          "ExpirationReaper-0-Produce",
          "group-coordinator-event-processor-1",
          "TxnMarkerSenderThread-0",
          "kafka-log-cleaner-thread-0"
        }) {
      assertTrue(Testbed.kafkaBrokerThread(broker), broker);
    }
    for (String client :
        new String[] {
          "kafka-producer-network-thread | producer-1",
          "kafka-coordinator-heartbeat-thread | perf-r1",
          "kafka-admin-client-thread | adminclient-2",
          "perf-kafka-perf-r1-k2-out",
          "HttpClient-1-Worker-0",
          "jms-sender-1",
          "main",
          "sdk-async-response-0-1"
        }) {
      assertFalse(Testbed.kafkaBrokerThread(client), client);
    }
  }
}
