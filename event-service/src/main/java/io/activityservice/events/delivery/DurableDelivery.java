package io.activityservice.events.delivery;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.channel.support.Futures;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.subscription.Ordering;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.tracing.EventTracing;
import io.activityservice.events.tracing.HopLatency;
import io.activityservice.events.transform.TransformException;
import io.activityservice.events.webhook.DeliveryDeferred;
import io.activityservice.events.webhook.TargetSettings;
import io.activityservice.events.webhook.WebhookTargets;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivery that no subscriber can hold up. The router hands every matching (event, subscription)
 * pair to {@link #deliver}: the first attempt runs at once; if it has not succeeded within {@code
 * park-after} it is <em>parked</em> in the {@link DeliveryStore} (the service's database), and from
 * then on the subscription's retries run from the store, on whichever replica claims them, on the
 * subscription's own schedule. The caller waits at most {@code park-after} per delivery, and a
 * failing subscriber costs the others nothing.
 *
 * <p>The store was chosen over a scheduler library or the brokers' scheduled delivery because
 * parked deliveries must be queryable per subscription (pending count, oldest age, last error),
 * bounded per subscription ({@code retry.maxPending}), browsed and redriven as dead letters, and
 * shared by replicas — all plain SQL on a table, with {@code FOR UPDATE SKIP LOCKED} giving each
 * row to one replica at a time (see docs/delivery-semantics.md).
 */
public final class DurableDelivery implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DurableDelivery.class);
  private static final int MAX_ROUTES = 10_000;

  /** How a delivery handed to {@link #deliver} ended, as far as the caller is concerned. */
  public enum Result {
    /** The target accepted the event. */
    DELIVERED,
    /**
     * Not yet delivered; retries continue from the store (or, for an ordered subscription, queued
     * in the store behind its key).
     */
    PARKED,
    /** Given up at once (no retries allowed); kept as a dead letter. */
    DEAD_LETTERED
  }

  /**
   * Told once how one delivery handed to {@link #deliver(SubscriptionIndex.Entry, RoutableEvent,
   * Callback)} ended: a result, or the error that kept it from becoming durable (the caller must
   * then let the event be redelivered). Called on whichever thread ended it (a channel's, the store
   * writer's, the timer's); must not block.
   */
  @FunctionalInterface
  public interface Callback {
    void settled(Result result, Throwable error);
  }

  /** What {@code GET /subscriptions/{id}/deliveries} reports. */
  public record SubscriptionDeliveries(
      String subscriptionId,
      long pending,
      long awaitingDeadLetterChannel,
      Long oldestPendingSince,
      Long nextAttemptAt,
      String lastError,
      Long lastAttemptAt,
      long deadLetters) {}

  /** A page of dead letters and the cursor of the next page ({@code null} at the end). */
  public record DeadLetterPage(List<DeadLetterRecord> items, String nextCursor) {}

  private final DeliveryStore store;
  private final ChannelRegistry channels;
  private final Function<String, SubscriptionIndex.Entry> subscriptions;
  private final DeliveryMetrics metrics;
  private final Clock clock;
  private final DeliverySettings settings;
  private final StoreWriter writer;
  private final DeadLetters deadLetters;
  private final Settler settler;
  private final RetryWorker worker;
  private final ScheduledExecutorService scheduler;
  private final ParkAfterTimer timer;
  private EventTracing tracing = EventTracing.NONE;

  /** Signing, credentials and timeouts of webhook subscriptions; {@code null} for none. */
  private volatile WebhookTargets webhooks;

  /**
   * Routes by target (targets come and go with subscriptions: beyond the bound, looked up
   * uncached).
   */
  private final java.util.Map<ChannelUri, Route> routes =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param fallbackDeadLetter dead-letter channel for subscriptions without their own, or {@code
   *     null}
   * @param subscriptions the active subscription with an id, or {@code null}
   */
  public DurableDelivery(
      DeliveryStore store,
      ChannelRegistry channels,
      ChannelUri fallbackDeadLetter,
      Function<String, SubscriptionIndex.Entry> subscriptions,
      DeliveryMetrics metrics,
      Clock clock,
      DeliverySettings settings) {
    this.store = store;
    this.channels = channels;
    this.subscriptions = subscriptions;
    this.metrics = metrics;
    this.clock = clock;
    this.settings = settings;
    this.writer =
        new StoreWriter(
            store, settings.maxQueuedParks(), this::enforceMaxPending, this::wakeRetries);
    this.deadLetters =
        new DeadLetters(channels, fallbackDeadLetter, writer::deadLetter, clock, this::tracing);
    this.settler = new Settler(writer, deadLetters, metrics, clock, this::keyFreed);
    this.worker =
        new RetryWorker(store, settler, this, deadLetters, subscriptions, settings, clock);
    this.scheduler = Executors.newScheduledThreadPool(1, DaemonThreads.named("delivery-timer"));
    this.timer = new ParkAfterTimer(settings.parkAfter(), scheduler);
  }

  /**
   * Applies webhook subscriptions' signing, connections and timeouts from now on (set once, before
   * {@link #start()}).
   */
  public DurableDelivery webhooks(WebhookTargets webhooks) {
    this.webhooks = webhooks;
    return this;
  }

  /**
   * Traces delivery attempts with {@code tracing}; set once, at start-up, before the first
   * delivery.
   */
  public DurableDelivery tracing(EventTracing tracing) {
    this.tracing = tracing == null ? EventTracing.NONE : tracing;
    return this;
  }

  EventTracing tracing() {
    return tracing;
  }

  /** Starts the retry worker and housekeeping (dead-letter retention, pending gauges). */
  public DurableDelivery start() {
    if (store.database().ensureDurableCommits()) {
      log.info(
          "H2: commits are written to the database file before they return (WRITE_DELAY 0), so a 2xx or an"
              + " acknowledged message survives a SIGKILL");
    }
    worker.start();
    scheduler.scheduleWithFixedDelay(this::housekeeping, 1, 10, TimeUnit.SECONDS);
    return this;
  }

  /**
   * On the writer thread: deliveries were parked or rescheduled; the earliest is due at {@code
   * dueAt}.
   */
  private void wakeRetries(long dueAt) {
    RetryWorker w = worker;
    if (w != null) {
      w.dueAt(dueAt);
    }
  }

  /** On the writer thread: the head of an ordered key left the store; the next may go at once. */
  private void keyFreed() {
    RetryWorker w = worker;
    if (w != null) {
      w.nudge();
    }
  }

  /**
   * Dead letters outside subscriptions (invalid inbound events, derivation loops) go through this.
   */
  public DeadLetters deadLetters() {
    return deadLetters;
  }

  public DeliverySettings settings() {
    return settings;
  }

  /**
   * Delivers one routed event to one subscription. Never throws.
   *
   * @return completes when the event was delivered, or durably parked or dead-lettered; fails if
   *     the store could not take it (the caller must then let the event be redelivered)
   */
  public CompletableFuture<Result> deliver(SubscriptionIndex.Entry entry, RoutableEvent event) {
    CompletableFuture<Result> result = new CompletableFuture<>();
    deliver(
        entry,
        event,
        (r, error) -> {
          if (error == null) {
            result.complete(r);
          } else {
            result.completeExceptionally(error);
          }
        });
    return result;
  }

  /**
   * Delivers one routed event to one subscription, and tells {@code done} once the event was
   * delivered, or durably parked or dead-lettered, or could not be taken over (the caller must let
   * the event be redelivered). Never throws; {@code done} may be called before this returns (a
   * channel that accepts at once).
   */
  public void deliver(SubscriptionIndex.Entry entry, RoutableEvent event, Callback done) {
    Ordering ordering = entry.subscription().ordering();
    if (ordering != null) {
      enqueueOrdered(entry, ordering, event).whenComplete(done::settled);
      return;
    }
    RoutedDelivery d = new RoutedDelivery(this, entry, event, done);
    d.start();
    if (d.isPending()) {
      timer.add(d);
    }
  }

  /**
   * A delivery of an ordered subscription: never sent directly, always queued in the store behind
   * the earlier deliveries of its key, and sent by the retry worker when it is the head of its key.
   *
   * <p>Why always through the store: whether an earlier delivery of the key is still waiting is
   * only known to the database, and another replica may park one at any moment; deciding "nothing
   * waits, send directly" here would race with that park (and with a SIGKILL between the check and
   * the send). Queuing every ordered delivery makes the database's row order the one order of the
   * key, across replicas, and the claim's head-of-key condition with {@code FOR UPDATE SKIP LOCKED}
   * gives a key to one replica at a time. The cost is the store's round trips per event (a batched
   * insert, a claim, a batched delete) instead of none; unordered subscriptions do not pay it.
   *
   * <p>The event is transformed now (once per delivery, as for a direct one); a failing
   * transformation dead-letters it at once and holds up nothing.
   */
  private CompletableFuture<Result> enqueueOrdered(
      SubscriptionIndex.Entry entry, Ordering ordering, RoutableEvent event) {
    try {
      OutboundEvent shaped;
      try {
        shaped = entry.transform() == null ? null : shape(entry, event);
      } catch (TransformException e) {
        return deadLetterUntransformable(entry, event, e);
      }
      long now = clock.millis();
      ParkedDelivery row =
          row(
              entry,
              event,
              shaped,
              ParkedDelivery.Phase.RETRY,
              receivedAtMillis(event, now),
              now,
              null,
              null,
              null,
              now,
              0,
              ordering.keyOf(event));
      return writer.park(new DeliveryStore.Park(row, null, null)).thenApply(v -> Result.PARKED);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The outbound channel of a target and its delivery counters, looked up once per target: one map
   * lookup per delivery, no tag built per event.
   */
  record Route(
      OutboundChannel channel,
      DeliveryMetrics.ChannelMeters meters,
      EventTracing.Destination destination) {

    /** Sends; never throws (a channel that throws fails the attempt). */
    CompletableFuture<Void> send(OutboundEvent event) {
      try {
        CompletableFuture<Void> f = channel.send(event);
        return f != null
            ? f
            : CompletableFuture.failedFuture(
                new IllegalStateException("channel returned no future"));
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
  }

  /** The route to a target; throws if no adapter serves it (the attempt fails). */
  Route route(ChannelUri target) {
    Route r = routes.get(target);
    if (r == null) {
      r = new Route(channels.outbound(target), metrics.channel(target), tracing.outbound(target));
      if (routes.size() < MAX_ROUTES) {
        routes.putIfAbsent(
            target, r); // the registry keeps one channel per URI, so racing routes are equal
      }
    }
    return r;
  }

  /** Counts a failed attempt at a target that has no route (no adapter serves it). */
  void countFailedAttempt(ChannelUri target) {
    metrics.failedAttempt(target);
  }

  /**
   * Sends one attempt of a subscription's delivery through {@code route}, with the subscription's
   * webhook settings applied (signature, credentials, timeout); never throws.
   */
  CompletableFuture<Void> send(Route route, SubscriptionIndex.Entry entry, OutboundEvent event) {
    return send(route, entry, event, false);
  }

  private CompletableFuture<Void> send(
      Route route, SubscriptionIndex.Entry entry, OutboundEvent event, boolean reserved) {
    TargetSettings settings = entry.subscription().webhook();
    WebhookTargets w = webhooks;
    if (settings == null || w == null) {
      return route.send(event);
    }
    return w.send(entry.subscription().id(), settings, event, reserved, route::send);
  }

  /**
   * One attempt of a parked delivery (a retry, or a redriven dead letter) in a span of its own: a
   * child of the stored event's trace context, whose context the target receives; the outcome is
   * counted. Never throws.
   *
   * @param attempt the attempt's number, for the span
   * @param reserved whether the delivery holds a rate-limit slot of its target
   * @param orderingKey the delivery's ordering key, sent as the transport's partition key (JMS
   *     message group, SQS FIFO message group, Kafka record key), or {@code null}
   */
  CompletableFuture<Void> retry(
      SubscriptionIndex.Entry entry,
      CloudEvent event,
      int attempt,
      boolean reserved,
      long parkedAtMillis,
      String orderingKey) {
    ChannelUri target = entry.target();
    Route route;
    try {
      route = route(target);
    } catch (RuntimeException e) {
      metrics.failedAttempt(target);
      return CompletableFuture.failedFuture(e);
    }
    EventTracing.Hop hop =
        tracing.deliver(null, event, route.destination(), entry.subscription().id(), attempt);
    OutboundEvent outbound =
        tracing.continued(
            hop,
            orderingKey == null
                ? OutboundEvent.of(event).withFormat(entry.format())
                : OutboundEvent.of(event).withFormat(entry.format()).withPartitionKey(orderingKey));
    long sendNanos = System.nanoTime();
    return send(route, entry, outbound, reserved)
        .whenComplete(
            (ok, error) -> {
              hop.end(error);
              if (error == null) {
                route.meters().delivered().increment();
                route.meters().send().record(System.nanoTime() - sendNanos, TimeUnit.NANOSECONDS);
                route
                    .meters()
                    .parked()
                    .record(
                        HopLatency.waitMillis(parkedAtMillis, clock.millis()),
                        TimeUnit.MILLISECONDS);
              } else if (!(Futures.unwrap(error) instanceof DeliveryDeferred)) {
                route.meters().failed().increment();
              }
            });
  }

  /**
   * What this subscription delivers of the event: its transformation (applied here, once per
   * delivery), in its format. Without a transformation, the event's shared outbound form, so
   * channels of one format still encode it once for all subscriptions.
   *
   * @throws TransformException if the transformation fails on this event
   */
  static OutboundEvent shape(SubscriptionIndex.Entry entry, RoutableEvent event) {
    if (entry.transform() == null) {
      return event.outbound().withFormat(entry.format());
    }
    return OutboundEvent.of(entry.transform().apply(event)).withFormat(entry.format());
  }

  /** The dead-letter reason of a failed transformation. */
  static String transformFailure(TransformException e) {
    return "the subscription's transformation failed: " + e.getMessage();
  }

  /**
   * The transformation failed on this event: it is dead-lettered at once with the reason (a retry
   * would fail the same way); the event is kept as received.
   */
  CompletableFuture<Result> deadLetterUntransformable(
      SubscriptionIndex.Entry entry, RoutableEvent event, TransformException error) {
    long now = clock.millis();
    String reason = transformFailure(error);
    return giveUpNow(entry, event, null, reason, reason, 0, receivedAtMillis(event, now), now);
  }

  /**
   * Gives a delivery up without a retry: to its subscription's dead-letter channel through the
   * store, or into the dead-letter table.
   *
   * @param shaped what was sent (the transformed event), or {@code null} if it is the event itself
   * @param attempts the attempts made (0: it was never sent)
   */
  private CompletableFuture<Result> giveUpNow(
      SubscriptionIndex.Entry entry,
      RoutableEvent event,
      OutboundEvent shaped,
      String lastError,
      String reason,
      int attempts,
      long received,
      long now) {
    metrics.deadLettered(entry.subscription().id(), entry.target().toString(), attempts);
    if (deadLetters.channelFor(entry.deadLetter()) != null) {
      ParkedDelivery row =
          row(
              entry,
              event,
              shaped,
              ParkedDelivery.Phase.DEAD_LETTER,
              received,
              now,
              lastError,
              reason,
              null,
              now,
              attempts);
      return writer
          .park(new DeliveryStore.Park(row, null, null))
          .thenApply(v -> Result.DEAD_LETTERED);
    }
    CloudEvent e = shaped != null ? shaped.event() : event.event();
    return writer
        .deadLetter(
            new DeadLetterRecord(
                UUID.randomUUID().toString(),
                entry.subscription().id(),
                Settler.origin(entry),
                e.getId(),
                e.getSource().toString(),
                e.getType(),
                json(event, shaped),
                attempts,
                reason,
                received,
                now,
                shaped != null))
        .thenApply(v -> Result.DEAD_LETTERED);
  }

  /**
   * The first attempt failed before {@code park-after}: park it for a retry, or give it up at once.
   *
   * @param shaped what was sent (the transformed event), or {@code null} if it is the event itself
   */
  CompletableFuture<Result> parkFailedFirstAttempt(
      SubscriptionIndex.Entry entry, RoutableEvent event, OutboundEvent shaped, Throwable error) {
    long now = clock.millis();
    RetryPolicy policy = entry.subscription().retry();
    Throwable cause = Futures.unwrap(error);
    boolean deferred = cause instanceof DeliveryDeferred;
    String failure =
        deferred ? "deferred: " + cause.getMessage() : "attempt 1: " + Settler.describe(error);
    long delay =
        deferred ? ((DeliveryDeferred) cause).delayMillis() : Settler.delayAfter(policy, 1, cause);
    long received = receivedAtMillis(event, now);
    String subscription = entry.subscription().id();
    boolean another =
        deferred
            ? now - received + delay < policy.maxAge().toMillis()
            : policy.allowsAnotherAttempt(1, now - received, delay);
    if (another) {
      ParkedDelivery row =
          row(
              entry,
              event,
              shaped,
              ParkedDelivery.Phase.RETRY,
              received,
              now + delay,
              failure,
              null,
              null,
              now,
              deferred ? 0 : 1);
      metrics.parked(subscription);
      return writer.park(new DeliveryStore.Park(row, null, null)).thenApply(v -> Result.PARKED);
    }
    String reason =
        deferred
            ? "gave up: retry.maxAge=" + policy.maxAge() + " would pass while " + failure
            : "gave up after 1 of retry.maxAttempts="
                + policy.maxAttempts()
                + " attempts; last "
                + failure;
    return giveUpNow(entry, event, shaped, failure, reason, deferred ? 0 : 1, received, now);
  }

  /**
   * The row of a first attempt still running at {@code park-after}: claimed by this replica,
   * attempt 1 counted.
   */
  ParkedDelivery inFlightRow(
      SubscriptionIndex.Entry entry, RoutableEvent event, OutboundEvent shaped) {
    long now = clock.millis();
    return row(
        entry,
        event,
        shaped,
        ParkedDelivery.Phase.RETRY,
        receivedAtMillis(event, now),
        now + settings.lease().toMillis(),
        null,
        null,
        UUID.randomUUID().toString(),
        now,
        1);
  }

  CompletableFuture<Void> parkInFlight(ParkedDelivery row) {
    metrics.parked(row.subscriptionId());
    return writer.park(new DeliveryStore.Park(row, settings.replicaId(), row.nextAttemptAt()));
  }

  /** The first attempt of a delivery parked while it ran has ended. */
  void settleLateFirstAttempt(
      ParkedDelivery row, SubscriptionIndex.Entry routedWith, Throwable error) {
    SubscriptionIndex.Entry current = subscriptions.apply(row.subscriptionId());
    settler.afterAttempt(row, current != null ? current : routedWith, error);
  }

  private ParkedDelivery row(
      SubscriptionIndex.Entry entry,
      RoutableEvent event,
      OutboundEvent shaped,
      ParkedDelivery.Phase phase,
      long receivedAt,
      long nextAttemptAt,
      String lastError,
      String reason,
      String lockToken,
      long now,
      int attempts) {
    return row(
        entry,
        event,
        shaped,
        phase,
        receivedAt,
        nextAttemptAt,
        lastError,
        reason,
        lockToken,
        now,
        attempts,
        null);
  }

  private ParkedDelivery row(
      SubscriptionIndex.Entry entry,
      RoutableEvent event,
      OutboundEvent shaped,
      ParkedDelivery.Phase phase,
      long receivedAt,
      long nextAttemptAt,
      String lastError,
      String reason,
      String lockToken,
      long now,
      int attempts,
      String orderingKey) {
    CloudEvent e = shaped != null ? shaped.event() : event.event();
    return new ParkedDelivery(
        UUID.randomUUID().toString(),
        entry.subscription().id(),
        phase,
        e.getId(),
        e.getSource().toString(),
        e.getType(),
        json(event, shaped),
        attempts,
        receivedAt,
        nextAttemptAt,
        lastError,
        reason,
        lockToken,
        now,
        shaped != null,
        orderingKey,
        null);
  }

  private long receivedAtMillis(RoutableEvent event, long nowMillis) {
    long ageNanos = System.nanoTime() - event.receivedAt();
    return nowMillis - Math.max(0, TimeUnit.NANOSECONDS.toMillis(ageNanos));
  }

  private static String json(CloudEvent e) {
    return new String(CloudEventJson.encode(e), StandardCharsets.UTF_8);
  }

  /**
   * The structured JSON the channels of that format already encoded, or encodes it once for them.
   */
  private static String json(RoutableEvent e) {
    return new String(e.outbound().encoded(CloudEventJson.STRUCTURED), StandardCharsets.UTF_8);
  }

  /** The structured JSON of what was sent: the transformed event if there is one. */
  private static String json(RoutableEvent e, OutboundEvent shaped) {
    return shaped == null
        ? json(e)
        : new String(shaped.encoded(CloudEventJson.STRUCTURED), StandardCharsets.UTF_8);
  }

  // ------------------------------------------------------------------ retry.maxPending

  /**
   * On the writer thread after parks: dead-letters the oldest deliveries of subscriptions past
   * their bound.
   */
  private void enforceMaxPending(Set<String> subscriptionIds) {
    for (String id : subscriptionIds) {
      SubscriptionIndex.Entry entry = subscriptions.apply(id);
      if (entry == null) {
        continue;
      }
      int max = entry.subscription().retry().maxPending();
      long pending = store.pendingRetries(id);
      if (pending <= max) {
        continue;
      }
      long now = clock.millis();
      String reason =
          "evicted: more than retry.maxPending="
              + max
              + " deliveries of this subscription were"
              + " waiting for a retry; the oldest are dead-lettered";
      int evicted =
          store.evictOldest(
              id,
              (int) Math.min(Integer.MAX_VALUE, pending - max),
              Settler.origin(entry),
              reason,
              now,
              deadLetters.channelFor(entry.deadLetter()) != null);
      if (evicted > 0) {
        metrics.evicted(id, evicted);
        metrics.deadLettered(id, entry.target().toString(), evicted);
        log.warn(
            "subscription {}: {} pending deliveries evicted to dead letters (retry.maxPending={})",
            id,
            evicted,
            max);
      }
    }
  }

  // ------------------------------------------------------------------ dead letters and stats
  // (request threads)

  /** Pending deliveries and dead letters of a subscription. */
  public SubscriptionDeliveries deliveries(String subscriptionId) {
    DeliveryStore.PendingStats s = store.pending(subscriptionId);
    return new SubscriptionDeliveries(
        subscriptionId,
        s.pending(),
        s.deadLetterPhase(),
        s.oldestCreatedAt(),
        s.nextAttemptAt(),
        s.lastError(),
        s.lastAttemptAt(),
        store.deadLetters().count(subscriptionId));
  }

  /**
   * A page of dead letters kept by the service, oldest first.
   *
   * @param cursor {@code nextCursor} of the previous page, or {@code null}
   * @throws InvalidInputException naming {@code cursor} or {@code limit}
   */
  public DeadLetterPage deadLetterPage(String subscriptionId, String cursor, int limit) {
    if (limit < 1 || limit > 1000) {
      throw new InvalidInputException("limit", "must be between 1 and 1000");
    }
    List<DeadLetterRecord> items =
        store.deadLetters().page(subscriptionId, Cursors.decode(cursor), limit + 1);
    String next = null;
    if (items.size() > limit) {
      items = items.subList(0, limit);
      DeadLetterRecord last = items.get(limit - 1);
      next = Cursors.encode(new DeadLetterStore.Cursor(last.deadLetteredAt(), last.id()));
    }
    return new DeadLetterPage(List.copyOf(items), next);
  }

  /**
   * Moves a subscription's dead letters back into its retry cycle (like an SQS dead-letter queue
   * redrive): the given ones, or the oldest up to the subscription's {@code retry.maxPending}.
   *
   * @return the ids moved
   * @throws NotFoundException if the subscription is not active
   */
  public List<String> redrive(String subscriptionId, List<String> ids) {
    SubscriptionIndex.Entry entry = subscriptions.apply(subscriptionId);
    if (entry == null) {
      throw new NotFoundException("subscription", subscriptionId);
    }
    if (ids != null && ids.size() > 10_000) {
      throw new InvalidInputException("ids", "at most 10000 per request");
    }
    int max = ids == null ? entry.subscription().retry().maxPending() : ids.size();
    List<String> moved = store.deadLetters().redrive(subscriptionId, ids, max, clock.millis());
    if (!moved.isEmpty()) {
      metrics.redriven(subscriptionId, moved.size());
      worker.nudge();
    }
    return moved;
  }

  /** Drops the parked deliveries of a subscription that was deleted. */
  public void subscriptionDeleted(String subscriptionId) {
    try {
      store.deleteParked(subscriptionId);
    } catch (RuntimeException e) {
      log.warn(
          "parked deliveries of deleted subscription {} not dropped now ({}); the retry worker drops them later",
          subscriptionId,
          e.toString());
    }
  }

  private void housekeeping() {
    try {
      metrics.pending(store.pendingBySubscription());
      int purged =
          store
              .deadLetters()
              .purgeOlderThan(clock.millis() - settings.deadLetterRetention().toMillis());
      if (purged > 0) {
        log.info("{} dead letters older than {} purged", purged, settings.deadLetterRetention());
      }
    } catch (RuntimeException e) {
      log.warn("delivery housekeeping failed: {}", e.toString());
    }
  }

  /** Attempts in flight from the store on this replica, and writes queued. */
  public int retriesInFlight() {
    return worker.inFlight();
  }

  /**
   * Stops claiming, commits queued writes. Attempts still running are taken over by their lease's
   * expiry.
   */
  @Override
  public void close() {
    worker.close();
    scheduler.shutdownNow();
    writer.close();
  }
}
