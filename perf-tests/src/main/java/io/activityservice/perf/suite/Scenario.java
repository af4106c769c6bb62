package io.activityservice.perf.suite;

import java.util.List;

/**
 * One channel-to-channel path: from a producer's transport, optionally through the service, to a
 * consumer's transport.
 *
 * @param id          short id used in file names and tables, e.g. {@code T2}
 * @param title       human-readable path, e.g. {@code JMS topic → service → JMS topic}
 * @param from        producer transport: {@code jms}, {@code sqs}, {@code kafka} or {@code rest}
 * @param to          consumer transport: {@code jms}, {@code sqs} or {@code kafka}
 * @param viaService  whether the service routes between the two (else one channel, producer to consumer)
 * @param directLegs  ids of the direct scenarios of this path's legs (its "direct counterpart" is the
 *                    slower of them); empty for direct scenarios
 */
public record Scenario(String id, String title, String from, String to, boolean viaService, List<String> directLegs) {

  /** The paper's T1–T6 plus Kafka and REST rows. */
  public static List<Scenario> all() {
    return List.of(
        direct("T1", "JMS topic direct", "jms"),
        via("T2", "JMS topic → service → JMS topic", "jms", "jms", "T1"),
        direct("T3", "SQS queue direct", "sqs"),
        via("T4", "SQS → service → SQS", "sqs", "sqs", "T3"),
        via("T5", "JMS topic → service → SQS", "jms", "sqs", "T1", "T3"),
        via("T6", "SQS → service → JMS topic", "sqs", "jms", "T3", "T1"),
        direct("K1", "Kafka direct", "kafka"),
        via("K2", "Kafka → service → Kafka", "kafka", "kafka", "K1"),
        via("K3", "JMS topic → service → Kafka", "jms", "kafka", "T1", "K1"),
        via("R1", "REST → service → JMS topic", "rest", "jms", "T1"));
  }

  /** Whether this scenario needs Kafka. */
  public boolean usesKafka() {
    return from.equals("kafka") || to.equals("kafka");
  }

  private static Scenario direct(String id, String title, String transport) {
    return new Scenario(id, title, transport, transport, false, List.of());
  }

  private static Scenario via(String id, String title, String from, String to, String... legs) {
    return new Scenario(id, title, from, to, true, List.of(legs));
  }
}
