package io.activityservice.channel;

import io.cloudevents.CloudEvent;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One event to send, with its per-event send options and a cache of its encodings. The router
 * builds one per routed event and hands it to every matching channel.
 *
 * <p><b>Partition key</b> ({@link #partitionKey()}): events with the same key are kept in order and
 * go to one consumer among the competing consumers of one queue or partition, as far as the
 * transport gives it:
 *
 * <ul>
 *   <li>JMS: {@code JMSXGroupID} = key: ActiveMQ message groups deliver all messages of a group, in
 *       order, to one consumer of the queue, and move the group when that consumer closes;
 *   <li>SQS: on FIFO queues ({@code .fifo}) {@code MessageGroupId} = key (a fixed group for events
 *       without key): order per group, and one receiver at a time per group (not always the same
 *       one); ignored on standard queues;
 *   <li>Kafka: the record key: one partition per key, so order per key and one member of a consumer
 *       group per key (until a rebalance moves the partition);
 *   <li>webhooks: ignored.
 * </ul>
 *
 * By default ({@link #of(CloudEvent)}) the key is the event's {@code partitionkey} extension (the
 * CloudEvents Partitioning extension), if it has one; {@link #withPartitionKey(String)} sets
 * another.
 *
 * <p><b>Send options</b> ({@link #options()}): request headers and an answer timeout for one
 * delivery (a webhook subscription's signature and credentials); channels other than webhooks
 * ignore them.
 *
 * <p><b>Encodings</b> ({@link #encoded(WireFormat)}): each wire format encodes the event once,
 * however many channels of that format send it and from however many threads; copies made with
 * {@link #withPartitionKey(String)} share the cache. Immutable apart from that cache; thread-safe.
 */
public final class OutboundEvent {

  /** The CloudEvents Partitioning extension. */
  public static final String PARTITION_KEY_EXTENSION = "partitionkey";

  private final CloudEvent event;
  private final String partitionKey;
  private final DeliveryFormat format;
  private final ConcurrentHashMap<WireFormat<?>, Object> encodings;
  private final SendOptions options;

  private OutboundEvent(
      CloudEvent event,
      String partitionKey,
      DeliveryFormat format,
      ConcurrentHashMap<WireFormat<?>, Object> encodings,
      SendOptions options) {
    this.event = event;
    this.partitionKey = partitionKey;
    this.format = format;
    this.encodings = encodings;
    this.options = options;
  }

  /**
   * An event to send, partitioned by its {@code partitionkey} extension if it has one.
   *
   * @throws NullPointerException if {@code event} is null
   */
  public static OutboundEvent of(CloudEvent event) {
    Objects.requireNonNull(event, "event");
    Object key = event.getExtension(PARTITION_KEY_EXTENSION);
    return new OutboundEvent(
        event,
        key == null ? null : emptyToNull(key.toString()),
        null,
        new ConcurrentHashMap<>(4),
        SendOptions.NONE);
  }

  /** The event. */
  public CloudEvent event() {
    return event;
  }

  /** The partition key, or {@code null} for none. */
  public String partitionKey() {
    return partitionKey;
  }

  /**
   * The same event with another partition key, sharing this one's encodings.
   *
   * @param key the key; {@code null} or empty for none
   */
  public OutboundEvent withPartitionKey(String key) {
    return new OutboundEvent(event, emptyToNull(key), format, encodings, options);
  }

  /**
   * Another event for the same delivery (e.g. with a new trace context): the partition key, format
   * and send options are kept; the encodings start afresh, as they belong to the event.
   */
  public OutboundEvent withEvent(CloudEvent replacement) {
    Objects.requireNonNull(replacement, "replacement");
    return new OutboundEvent(
        replacement, partitionKey, format, new ConcurrentHashMap<>(4), options);
  }

  /**
   * What this delivery asks of the channel besides the event (webhooks: request headers and answer
   * timeout); {@link SendOptions#NONE} unless set with {@link #withOptions}.
   */
  public SendOptions options() {
    return options;
  }

  /**
   * The same event for one delivery with other send options, sharing this one's encodings (so a
   * signature computed over {@link #encoded} covers exactly the bytes the channel sends).
   */
  public OutboundEvent withOptions(SendOptions options) {
    return new OutboundEvent(
        event, partitionKey, format, encodings, options == null ? SendOptions.NONE : options);
  }

  /**
   * The format the subscription asked for, or {@code null} for the transport's default (see {@link
   * DeliveryFormat}).
   */
  public DeliveryFormat format() {
    return format;
  }

  /**
   * The same event to be sent in {@code format} ({@code null}: the transport's default), sharing
   * this one's encodings (each wire format is its own cache key).
   */
  public OutboundEvent withFormat(DeliveryFormat format) {
    return format == this.format
        ? this
        : new OutboundEvent(event, partitionKey, format, encodings, options);
  }

  /**
   * The event in {@code format}, encoded on the first call for that format and cached: later calls,
   * from any thread and any copy of this event, return the same object. Concurrent first calls
   * encode once (the others wait for it). A failed encoding is not cached.
   *
   * @throws RuntimeException what the format threw
   */
  @SuppressWarnings("unchecked")
  public <T> T encoded(WireFormat<T> format) {
    Objects.requireNonNull(format, "format");
    return (T)
        encodings.computeIfAbsent(
            format,
            f -> Objects.requireNonNull(f.encode(event), "a wire format returned no encoding"));
  }

  private static String emptyToNull(String key) {
    return key == null || key.isEmpty() ? null : key;
  }

  @Override
  public String toString() {
    return "OutboundEvent["
        + event.getId()
        + (partitionKey == null ? "" : ", key=" + partitionKey)
        + (format == null ? "" : ", format=" + format.wireName())
        + "]";
  }
}
