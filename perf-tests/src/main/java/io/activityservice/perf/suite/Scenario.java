package io.activityservice.perf.suite;

import java.util.List;

/**
 * One channel-to-channel path: from a producer's transport, optionally through the service (or the
 * Camel peer), to a consumer's transport.
 *
 * @param id short id used in file names and tables, e.g. {@code T2}
 * @param title human-readable path, e.g. {@code JMS topic → service → JMS topic}
 * @param from producer transport: {@code jms}, {@code sqs}, {@code kafka}, {@code rest} (one event
 *     per request) or {@code rest-batch} (batches of {@value #REST_BATCH} events per request)
 * @param to consumer transport: {@code jms}, {@code sqs} or {@code kafka}
 * @param viaService whether the service routes between the two (else one channel, producer to
 *     consumer, or the peer)
 * @param directLegs ids of the direct scenarios of this path's legs (its "direct counterpart" is
 *     the slower of them); empty for direct scenarios
 * @param peer the peer that relays instead of the service ({@code camel}), or null
 * @param twin for a peer scenario, the via-service scenario doing the same job (e.g. {@code T2} for
 *     {@code CT2}); else null
 */
public record Scenario(
    String id,
    String title,
    String from,
    String to,
    boolean viaService,
    List<String> directLegs,
    String peer,
    String twin) {

  /** Events per request of the REST batch scenario (R2). */
  public static final int REST_BATCH = 100;

  /** A scenario without a peer. */
  public Scenario(
      String id,
      String title,
      String from,
      String to,
      boolean viaService,
      List<String> directLegs) {
    this(id, title, from, to, viaService, directLegs, null, null);
  }

  /**
   * The paper's T1–T6 plus Kafka and REST rows, X2 (T2 with a transforming subscription), and the
   * Camel peer's rows (CT2, CT4, CT5, CK2: the same paths as T2, T4, T5, K2 relayed by a plain
   * Camel route, run only with {@code --peer camel}).
   */
  public static List<Scenario> all() {
    return List.of(
        direct("T1", "JMS topic direct", "jms"),
        via("T2", "JMS topic → service → JMS topic", "jms", "jms", "T1"),
        via("X2", "JMS topic → service (JSONata transform) → JMS topic", "jms", "jms", "T1"),
        direct("T3", "SQS queue direct", "sqs"),
        via("T4", "SQS → service → SQS", "sqs", "sqs", "T3"),
        via("T5", "JMS topic → service → SQS", "jms", "sqs", "T1", "T3"),
        via("T6", "SQS → service → JMS topic", "sqs", "jms", "T3", "T1"),
        direct("K1", "Kafka direct", "kafka"),
        via("K2", "Kafka → service → Kafka", "kafka", "kafka", "K1"),
        via("K3", "JMS topic → service → Kafka", "jms", "kafka", "T1", "K1"),
        via("R1", "REST → service → JMS topic", "rest", "jms", "T1"),
        via(
            "R2",
            "REST batch (" + REST_BATCH + " per request) → service → JMS topic",
            "rest-batch",
            "jms",
            "T1"),
        camel("CT2", "JMS topic → Camel → JMS topic", "jms", "jms", "T2", "T1"),
        camel("CT4", "SQS → Camel → SQS", "sqs", "sqs", "T4", "T3"),
        camel("CT5", "JMS topic → Camel → SQS", "jms", "sqs", "T5", "T1", "T3"),
        camel("CK2", "Kafka → Camel → Kafka", "kafka", "kafka", "K2", "K1"));
  }

  /**
   * A typical reshaping of the suite's event (rename and nest the fields, count the payload, copy
   * an attribute), the transformation X2's subscription applies: its cost is X2's CPU per event
   * less T2's, the same path without it.
   */
  public static final String X2_TRANSFORM =
      "{'reading': {'value': data.value, 'size': $length(data.payload)}, 'payload': data.payload,"
          + " 'from': source}";

  /** The JSONata transformation of this path's subscription, or null for none. */
  public String transform() {
    return id.equals("X2") ? X2_TRANSFORM : null;
  }

  /** Whether this scenario needs Kafka. */
  public boolean usesKafka() {
    return from.equals("kafka") || to.equals("kafka");
  }

  /** Whether something relays between producer and consumer (the service or a peer). */
  public boolean relayed() {
    return viaService || peer != null;
  }

  /** Whether the producer posts to the service's REST API. */
  public boolean rest() {
    return from.startsWith("rest");
  }

  private static Scenario direct(String id, String title, String transport) {
    return new Scenario(id, title, transport, transport, false, List.of());
  }

  private static Scenario via(String id, String title, String from, String to, String... legs) {
    return new Scenario(id, title, from, to, true, List.of(legs));
  }

  private static Scenario camel(
      String id, String title, String from, String to, String twin, String... legs) {
    return new Scenario(id, title, from, to, false, List.of(legs), "camel", twin);
  }
}
