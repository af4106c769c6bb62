package io.activityservice.channel.jms;

import io.activityservice.channel.ChannelUri;
import jakarta.jms.Destination;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.activemq.command.ActiveMQQueue;
import org.apache.activemq.command.ActiveMQTopic;

/**
 * A parsed {@code jms:} channel address: {@code topic:<name>} or {@code queue:<name>}, optionally
 * followed by {@code ?persistent=true|false} to override the adapter-wide delivery mode.
 *
 * @param topic whether the destination is a topic (else a queue)
 * @param name the physical destination name, e.g. {@code activity.events.in}
 * @param persistent the per-channel delivery mode, or {@code null} for the adapter default
 */
record JmsAddress(boolean topic, String name, Boolean persistent) {

  /** Letters, digits and {@code . _ - $ /}: no ActiveMQ wildcards ({@code * >}) or composites. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._$/-]+");

  static final String VALID_FORMS =
      "valid forms are jms:topic:<name> and jms:queue:<name>, optionally with ?persistent=false,"
          + " e.g. jms:topic:activity.events.in";

  /**
   * Parses and validates a {@code jms} channel URI.
   *
   * @throws IllegalArgumentException naming the valid forms
   */
  static JmsAddress parse(ChannelUri uri) {
    if (!"jms".equals(uri.scheme())) {
      throw invalid(uri, "the scheme is not jms");
    }
    String address = uri.address();
    Boolean persistent = null;
    int query = address.indexOf('?');
    if (query >= 0) {
      persistent = parseQuery(uri, address.substring(query + 1));
      address = address.substring(0, query);
    }
    int colon = address.indexOf(':');
    if (colon < 0) {
      throw invalid(uri, "the destination kind is missing");
    }
    String kind = address.substring(0, colon).toLowerCase(Locale.ROOT);
    String name = address.substring(colon + 1);
    if (!kind.equals("topic") && !kind.equals("queue")) {
      throw invalid(uri, "'" + kind + "' is neither topic nor queue");
    }
    if (!NAME.matcher(name).matches()) {
      throw invalid(
          uri, "the destination name must be non-empty and use only letters, digits and . _ - $ /");
    }
    return new JmsAddress(kind.equals("topic"), name, persistent);
  }

  private static Boolean parseQuery(ChannelUri uri, String query) {
    String[] pair = query.split("=", 2);
    if (pair.length != 2
        || !pair[0].equals("persistent")
        || !(pair[1].equals("true") || pair[1].equals("false"))) {
      throw invalid(uri, "the only option is ?persistent=true or ?persistent=false");
    }
    return Boolean.valueOf(pair[1]);
  }

  private static IllegalArgumentException invalid(ChannelUri uri, String why) {
    return new IllegalArgumentException(
        "jms channel '" + uri + "' is invalid: " + why + "; " + VALID_FORMS);
  }

  /** The delivery mode of this channel given the adapter default. */
  boolean persistentOr(boolean fallback) {
    return persistent == null ? fallback : persistent;
  }

  /** The ActiveMQ destination producers send to. */
  Destination destination() {
    return topic ? new ActiveMQTopic(name) : new ActiveMQQueue(name);
  }

  /**
   * The queue a consumer reads. Queues are read directly; a topic is read through the ActiveMQ
   * virtual-topic consumer queue {@code Consumer.<subscription>.<topic>}, which the broker fills
   * with a copy of every message published to the topic (a shared durable subscription).
   *
   * @param exclusive open it as an ActiveMQ exclusive consumer: of all consumers of the queue, one
   *     receives everything and another takes over when it closes
   */
  ActiveMQQueue consumerQueue(String subscriptionName, boolean exclusive) {
    String queue = topic ? VirtualTopics.consumerQueue(subscriptionName, name) : name;
    // ActiveMQ destination option: the broker dispatches to one consumer only and fails over to
    // another when it closes.
    return new ActiveMQQueue(exclusive ? queue + "?consumer.exclusive=true" : queue);
  }
}
