package io.activityservice.perf.specjms;

import io.activityservice.perf.specjms.Workload.Group;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a message group (Table 5.3 of Sachs 2010) asks of the driver's producers and consumers, and
 * how each of the service's transports honours it. Pure mapping, no I/O: the driver opens its
 * clients from it.
 *
 * <ul>
 *   <li>a: pub/sub, non-persistent, non-transactional, non-durable;
 *   <li>b: pub/sub, persistent, transactional, durable;
 *   <li>c: P2P, non-persistent, non-transactional;
 *   <li>d: P2P, persistent, transactional.
 * </ul>
 *
 * <p>Per transport: JMS (distribution centres) sends {@code NON_PERSISTENT} outside a transaction
 * for a/c and {@code PERSISTENT} in a transacted session, committed per message, for b/d; a JMS
 * consumer of a transactional group receives in a transacted session, committed per message. Kafka
 * (headquarters) has no persistence flag (every record goes to the log): a/c send with {@code
 * acks=0} (no wait for the broker, as ActiveMQ sends a non-persistent message without a receipt),
 * b/d with {@code acks=all}, idempotence and a transaction per message. SQS (supermarkets) stores
 * every message and has no transactions: the group changes nothing there. Webhooks (suppliers) are
 * HTTP requests: nothing to choose either.
 *
 * @param group the group
 * @param topic pub/sub (a, b) rather than P2P (c, d)
 * @param persistent the broker stores the message before it counts as sent (b, d)
 * @param transacted sent and received inside a transaction, committed per message (b, d)
 * @param durable a topic subscription that keeps messages while its subscriber is away (b only)
 */
public record GroupSettings(
    Group group, boolean topic, boolean persistent, boolean transacted, boolean durable) {

  /** The settings of a group, as Table 5.3 gives them. */
  public static GroupSettings of(Group g) {
    return switch (g) {
      case A -> new GroupSettings(g, true, false, false, false);
      case B -> new GroupSettings(g, true, true, true, true);
      case C -> new GroupSettings(g, false, false, false, false);
      case D -> new GroupSettings(g, false, true, true, false);
    };
  }

  /**
   * The Kafka producer settings of this group: {@code acks=0} without persistence, else {@code
   * acks=all}, idempotence and (when {@code transactionalId} is not null) a transactional id.
   */
  public Map<String, Object> kafkaProducer(String transactionalId) {
    Map<String, Object> p = new LinkedHashMap<>();
    if (!persistent) {
      p.put("acks", "0");
      p.put("enable.idempotence", "false");
      return p;
    }
    p.put("acks", "all");
    p.put("enable.idempotence", "true");
    if (transacted && transactionalId != null) {
      p.put("transactional.id", transactionalId);
    }
    return p;
  }

  /**
   * The service-side target for a subscription that delivers messages of {@code groups}: a JMS
   * target ({@code jms:queue:…}, {@code jms:topic:…}) gets the JMS adapter's {@code
   * ?persistent=false} when no group in it is persistent; every other target, and a JMS target
   * carrying any persistent group, is returned unchanged (persistent, the adapter's default).
   */
  public static String serviceTarget(String uri, Collection<Group> groups) {
    if (!uri.startsWith("jms:") || uri.contains("?") || groups.isEmpty()) {
      return uri;
    }
    for (Group g : groups) {
      if (of(g).persistent()) {
        return uri;
      }
    }
    return uri + "?persistent=false";
  }

  /** How the transport behind a role's channel honours this group, one line for the report. */
  public String honouredOn(String transport) {
    return switch (transport) {
      case "jms" ->
          persistent
              ? "PERSISTENT, transacted session, commit per message"
              : "NON_PERSISTENT, no transaction";
      case "kafka" ->
          persistent ? "acks=all, idempotent, transaction per message" : "acks=0, no transaction";
      case "sqs" -> "SQS stores every message and has no transactions: as every group";
      case "rest" -> "HTTP POST, answered once the service took responsibility: as every group";
      default -> throw new IllegalArgumentException("unknown transport " + transport);
    };
  }
}
