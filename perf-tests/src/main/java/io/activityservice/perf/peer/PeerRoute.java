package io.activityservice.perf.peer;

import java.util.List;

/**
 * One route of the Camel peer: the endpoint URIs a team would write for a plain relay between the
 * suite's channels (perf-tests/README.md, "The Camel peer").
 *
 * <ul>
 *   <li>JMS source: the virtual topic's consumer queue {@code Consumer.camel.<topic>}, the same
 *       kind of source the service's {@code jms:topic:} inbound consumes ({@code
 *       Consumer.<subscription>.<topic>}); {@link #CONSUMERS} consumers, each on a locally
 *       transacted session ({@code lazyCreateTransactionManager=false}: without it camel-jms
 *       creates a {@code JmsTransactionManager} whose session the send uses, i.e. two transactions
 *       per message; with it the send joins the consumer's session: one commit per message),
 *       consumer cached.
 *   <li>JMS target: the topic (a virtual topic, as the service's {@code jms:topic:} outbound
 *       sends).
 *   <li>SQS source: a batch consumer, up to 10 per receive, deleting each message after its
 *       exchange, long polls of 1 s, polling again at once after a non-empty receive ({@code
 *       greedy}), {@link #CONSUMERS} polling threads.
 *   <li>Kafka: a consumer group in batching mode (the records of its polls as one exchange, up to
 *       {@code maxPollRecords} = 500, a partial batch handed on once 10 ms old ({@code
 *       batchingIntervalMs}) or after an empty poll of 20 ms ({@code pollTimeoutMs}; Camel's 5 s
 *       default would hold the tail of every burst for 5 s)) and a producer sending them with their
 *       own headers, {@code lingerMs=0} (see {@link #producer}).
 *   <li>JMS → SQS also turns the binary-mode event into structured JSON (the SQS consumers read
 *       structured events; the service's T5 does the same conversion).
 * </ul>
 *
 * @param id scenario id, also the route id
 * @param from Camel consumer URI
 * @param to Camel producer URI
 * @param structured binary JMS CloudEvent → structured JSON before sending
 */
public record PeerRoute(String id, String from, String to, boolean structured) {

  /** The JMS subscription name (virtual-topic consumer queue prefix) of the peer. */
  public static final String SUBSCRIPTION = "camel";

  /**
   * Consumers per JMS and SQS route: what a team sizing a relay for throughput sets (Camel's
   * default is 1); the service runs 2 transacted JMS sessions and up to 4 concurrent SQS receives
   * per inbound channel.
   */
  static final int CONSUMERS = 4;

  /**
   * The route between two of the suite's channel URIs ({@code jms:topic:…}, {@code sqs:…}, {@code
   * kafka:…}).
   *
   * @param kafkaBrokers Kafka brokers, for Kafka endpoints
   */
  public static PeerRoute of(String id, String in, String out, String kafkaBrokers) {
    boolean structured = in.startsWith("jms:") && out.startsWith("sqs:");
    return new PeerRoute(id, consumer(in, kafkaBrokers), producer(out, kafkaBrokers), structured);
  }

  static String consumer(String uri, String kafkaBrokers) {
    if (uri.startsWith("jms:topic:")) {
      return "jms:queue:Consumer."
          + SUBSCRIPTION
          + "."
          + uri.substring("jms:topic:".length())
          + "?transacted=true&lazyCreateTransactionManager=false&cacheLevelName=CACHE_CONSUMER"
          + "&concurrentConsumers="
          + CONSUMERS
          + "&maxConcurrentConsumers="
          + CONSUMERS;
    }
    if (uri.startsWith("sqs:")) {
      return "aws2-sqs://"
          + uri.substring("sqs:".length())
          + "?maxMessagesPerPoll=10&deleteAfterRead=true&waitTimeSeconds=1&greedy=true&delay=1&autoCreateQueue=true"
          + "&concurrentConsumers="
          + CONSUMERS;
    }
    if (uri.startsWith("kafka:")) {
      return "kafka:"
          + uri.substring("kafka:".length())
          + "?brokers="
          + kafkaBrokers
          + "&groupId=camel-peer&autoOffsetReset=earliest&batching=true&batchingIntervalMs=10&pollTimeoutMs=20";
    }
    throw new IllegalArgumentException("no Camel consumer for " + uri);
  }

  static String producer(String uri, String kafkaBrokers) {
    if (uri.startsWith("jms:topic:")) {
      return "jms:topic:" + uri.substring("jms:topic:".length());
    }
    if (uri.startsWith("sqs:")) {
      return "aws2-sqs://" + uri.substring("sqs:".length()) + "?autoCreateQueue=true";
    }
    if (uri.startsWith("kafka:")) {
      // The consumer hands each poll's records as one list (batching=true) and the producer sends
      // the list's records
      // with their own headers (batchWithIndividualHeaders: the CloudEvents ce_* headers of each
      // record), all in
      // flight at once, so the producer batches by itself; lingerMs=0 because Camel's default (5
      // ms) would delay
      // every poll's batch by 5 ms at low rates.
      return "kafka:"
          + uri.substring("kafka:".length())
          + "?brokers="
          + kafkaBrokers
          + "&lingerMs=0&batchWithIndividualHeaders=true";
    }
    throw new IllegalArgumentException("no Camel producer for " + uri);
  }

  /** The peer's Spring Boot arguments for these routes. */
  public static List<String> arguments(List<PeerRoute> routes) {
    List<String> args = new java.util.ArrayList<>();
    for (int i = 0; i < routes.size(); i++) {
      PeerRoute r = routes.get(i);
      args.add("--peer.routes[" + i + "].id=" + r.id());
      args.add("--peer.routes[" + i + "].from=" + r.from());
      args.add("--peer.routes[" + i + "].to=" + r.to());
      if (r.structured()) {
        args.add("--peer.routes[" + i + "].structured=true");
      }
    }
    return args;
  }
}
