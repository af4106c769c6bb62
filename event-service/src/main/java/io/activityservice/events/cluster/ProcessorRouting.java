package io.activityservice.events.cluster;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes each stateful processor — a detector or a rule set — see every event of its inputs exactly
 * on one replica, through the deployment's broker instead of a home-made cluster protocol.
 *
 * <p>Every processor has an internal channel ({@code activity.cluster.internal-channel}, by default
 * {@code jms:queue:activity.internal.<kind>.<name>}). The replica that ingests an event sends it to
 * the internal channel of each processor consuming its type, with the processor's partition key as
 * the message's partition key (ActiveMQ message group {@code JMSXGroupID}, SQS FIFO message group,
 * Kafka record key). Every replica consumes every internal channel as a competing consumer: the
 * broker gives each key to one replica and moves it when that replica goes away. A processor
 * without a partition key is consumed with an exclusive consumer ({@code exclusive=true}: ActiveMQ
 * {@code consumer.exclusive}), so one replica owns it and the broker fails over. The route of an
 * event waits for these sends, so an event acknowledged by any replica reaches its processors.
 *
 * <p>What moves with ownership is the key, not the state: the new owner starts with empty windows
 * for that key (docs/operations.md, "Running several replicas").
 */
public final class ProcessorRouting implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ProcessorRouting.class);
  private static final int KEYS_REPORTED = 20;
  private static final int KEYS_REMEMBERED = 1000;

  /**
   * A processor.
   *
   * @param kind {@code detector} or {@code rules}
   * @param name its name
   * @param partitionBy its partition key, or {@code null} for one owner
   * @param types the event types it consumes; empty for every type
   * @param process hands it one event; {@code false} when it cannot take the event now (its queue
   *     is full)
   */
  public record Processor(
      String kind,
      String name,
      PartitionKey partitionBy,
      Set<String> types,
      Predicate<RoutableEvent> process) {
    String id() {
      return kind + ":" + name;
    }
  }

  /** Who this replica is for a processor: events and keys it received recently. */
  private static final class Ownership {
    volatile long lastReceived;
    final java.util.concurrent.atomic.AtomicLong received =
        new java.util.concurrent.atomic.AtomicLong();
    final Map<String, Long> keys =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > KEYS_REMEMBERED;
          }
        };
  }

  private record Running(
      Processor processor, ChannelUri channel, InboundChannel inbound, Ownership ownership) {}

  private final ChannelRegistry channels;
  private final String channelTemplate;
  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private volatile Map<String, List<Running>> byType = Map.of();
  private volatile List<Running> everyType = List.of();

  /**
   * @param channelTemplate internal channel URI with {@code {kind}} and {@code {name}}
   *     placeholders, e.g. {@code jms:queue:activity.internal.{kind}.{name}}
   */
  public ProcessorRouting(ChannelRegistry channels, String channelTemplate) {
    this.channels = channels;
    this.channelTemplate = channelTemplate;
    channelFor("detector", "check-template");
  }

  /** The internal channel of a processor. */
  public ChannelUri channelFor(String kind, String name) {
    String uri = channelTemplate.replace("{kind}", kind).replace("{name}", name);
    try {
      return channels.parse("activity.cluster.internal-channel", uri);
    } catch (InvalidInputException e) {
      throw new IllegalArgumentException(
          "activity.cluster.internal-channel '"
              + channelTemplate
              + "' does not give a valid channel URI ("
              + e.getMessage()
              + "); use e.g."
              + " jms:queue:activity.internal.{kind}.{name}",
          e);
    }
  }

  /**
   * Starts consuming a processor's internal channel on this replica (replacing an earlier
   * registration).
   */
  public synchronized void register(Processor p) {
    unregister(p.kind(), p.name());
    ChannelUri uri = channelFor(p.kind(), p.name());
    Ownership ownership = new Ownership();
    Map<String, String> props = new HashMap<>();
    props.put("subscriptionName", "activity-internal");
    if (p.partitionBy() == null) {
      props.put("exclusive", "true");
    }
    InboundChannel inbound =
        channels
            .adapter(uri)
            .openInbound(
                uri,
                new InboundSettings(null, null, props),
                (event, ack) -> {
                  RoutableEvent routable;
                  try {
                    routable = RoutableEvent.of(event);
                  } catch (RuntimeException e) {
                    log.warn(
                        "{} {}: dropping internal event {} that cannot be read: {}",
                        p.kind(),
                        LogSafe.text(p.name()),
                        LogSafe.text(event.getId()),
                        LogSafe.text(e.getMessage(), 1024));
                    ack.ack();
                    return;
                  }
                  if (p.process().test(routable)) {
                    ownership.lastReceived = System.currentTimeMillis();
                    ownership.received.incrementAndGet();
                    if (p.partitionBy() != null) {
                      synchronized (ownership.keys) {
                        ownership.keys.put(p.partitionBy().of(routable), ownership.lastReceived);
                      }
                    }
                    ack.ack();
                  } else {
                    ack.nack(
                        new RejectedExecutionException(p.kind() + " " + p.name() + " is busy"));
                  }
                });
    running.put(p.id(), new Running(p, uri, inbound, ownership));
    reindex();
    log.info(
        "{} {} consumes {}{}",
        p.kind(),
        LogSafe.text(p.name()),
        LogSafe.text(uri),
        p.partitionBy() == null
            ? " (exclusive: one replica owns it)"
            : " partitioned by " + p.partitionBy());
  }

  /** Stops consuming a processor's internal channel here. */
  public synchronized void unregister(String kind, String name) {
    Running r = running.remove(kind + ":" + name);
    if (r != null) {
      r.inbound().close();
      reindex();
    }
  }

  /**
   * Sends an event to the internal channel of every processor consuming its type. Never throws.
   *
   * @return completes when every send was accepted by the broker
   */
  public CompletableFuture<Void> forward(RoutableEvent event) {
    List<Running> typed = byType.get(event.event().getType());
    List<Running> every = everyType;
    if (typed == null && every.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<Void>> sends = new ArrayList<>(2);
    if (typed != null) {
      typed.forEach(r -> sends.add(send(r, event)));
    }
    every.forEach(r -> sends.add(send(r, event)));
    return sends.size() == 1
        ? sends.get(0)
        : CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new));
  }

  /**
   * Sends an event to the internal channel of the processors consuming its type that {@code only}
   * accepts (a replay's destinations). Never throws.
   */
  public CompletableFuture<Void> forward(RoutableEvent event, Predicate<Processor> only) {
    List<CompletableFuture<Void>> sends = new ArrayList<>(2);
    List<Running> typed = byType.get(event.event().getType());
    if (typed != null) {
      typed.stream().filter(r -> only.test(r.processor())).forEach(r -> sends.add(send(r, event)));
    }
    everyType.stream()
        .filter(r -> only.test(r.processor()))
        .forEach(r -> sends.add(send(r, event)));
    return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new));
  }

  private CompletableFuture<Void> send(Running r, RoutableEvent event) {
    PartitionKey key = r.processor().partitionBy();
    // One key for an unpartitioned processor too: one sender session, so its events stay in order.
    String partition = key == null ? "all" : key.of(event);
    try {
      return channels.outbound(r.channel()).send(event.outbound().withPartitionKey(partition));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Which processors and keys this replica processed recently (for the cluster view). */
  public List<Map<String, Object>> ownership() {
    long now = System.currentTimeMillis();
    List<Map<String, Object>> out = new ArrayList<>();
    for (Running r : running.values()) {
      Map<String, Object> m = new LinkedHashMap<>();
      Ownership o = r.ownership();
      m.put("kind", r.processor().kind());
      m.put("name", r.processor().name());
      m.put(
          "partitionBy",
          r.processor().partitionBy() == null ? null : r.processor().partitionBy().expression());
      m.put("active", o.lastReceived > 0 && now - o.lastReceived < 60_000);
      m.put("eventsReceived", o.received.get());
      if (r.processor().partitionBy() != null) {
        synchronized (o.keys) {
          m.put("keysSeen", o.keys.size());
          m.put("keys", o.keys.keySet().stream().limit(KEYS_REPORTED).toList());
        }
      }
      out.add(m);
    }
    return out;
  }

  private void reindex() {
    Map<String, List<Running>> typed = new HashMap<>();
    List<Running> every = new ArrayList<>();
    for (Running r : running.values()) {
      if (r.processor().types().isEmpty()) {
        every.add(r);
      } else {
        r.processor().types().forEach(t -> typed.computeIfAbsent(t, k -> new ArrayList<>()).add(r));
      }
    }
    Map<String, List<Running>> frozen = new HashMap<>();
    typed.forEach((t, l) -> frozen.put(t, List.copyOf(l)));
    byType = Map.copyOf(frozen);
    everyType = List.copyOf(every);
  }

  @Override
  public synchronized void close() {
    running.values().forEach(r -> r.inbound().close());
    running.clear();
    reindex();
  }
}
