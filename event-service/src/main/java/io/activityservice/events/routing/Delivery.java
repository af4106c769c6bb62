package io.activityservice.events.routing;

import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.SubscriptionIndex;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Delivers one event to one subscription's target with the subscription's retry policy, then
 * dead-letters it. Each delivery is independent, so a slow target never delays the others.
 */
final class Delivery {

  /** Outcome of a delivery that settled. */
  enum Result { DELIVERED, DEAD_LETTERED }

  private final SubscriptionIndex.Entry entry;
  private final RoutableEvent event;
  private final ChannelRegistry channels;
  private final DeadLetters deadLetters;
  private final ScheduledExecutorService timer;
  private final RoutingMetrics metrics;
  private final CompletableFuture<Result> result = new CompletableFuture<>();
  private final String target;

  private Delivery(SubscriptionIndex.Entry entry, RoutableEvent event, ChannelRegistry channels,
                   DeadLetters deadLetters, ScheduledExecutorService timer, RoutingMetrics metrics) {
    this.entry = entry;
    this.event = event;
    this.channels = channels;
    this.deadLetters = deadLetters;
    this.timer = timer;
    this.metrics = metrics;
    this.target = entry.target().toString();
  }

  /** Starts delivering; the future fails only if even dead-lettering failed. */
  static CompletableFuture<Result> start(SubscriptionIndex.Entry entry, RoutableEvent event,
                                         ChannelRegistry channels, DeadLetters deadLetters,
                                         ScheduledExecutorService timer, RoutingMetrics metrics) {
    Delivery d = new Delivery(entry, event, channels, deadLetters, timer, metrics);
    d.attempt(1);
    return d.result;
  }

  private void attempt(int n) {
    CompletableFuture<Void> send;
    try {
      send = channels.outbound(entry.target()).send(event.event());
    } catch (RuntimeException e) {
      send = CompletableFuture.failedFuture(e);
    }
    send.whenComplete((ok, error) -> {
      if (error == null) {
        metrics.delivered(target);
        result.complete(Result.DELIVERED);
      } else {
        metrics.failedAttempt(target);
        retryOrGiveUp(n, unwrap(error));
      }
    });
  }

  private void retryOrGiveUp(int n, Throwable error) {
    RetryPolicy policy = entry.subscription().retry();
    long delayMillis = policy.backoff(n).toMillis();
    long ageMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - event.receivedAt());
    if (n < policy.maxAttempts() && ageMillis + delayMillis < policy.maxAge().toMillis()) {
      try {
        timer.schedule(() -> attempt(n + 1), delayMillis, TimeUnit.MILLISECONDS);
        return;
      } catch (RejectedExecutionException shuttingDown) {
        // Fall through: dead-letter now rather than lose the event.
      }
    }
    metrics.deadLettered(target);
    String reason = String.valueOf(error.getMessage() == null ? error : error.getMessage());
    deadLetters.send(event.event(), entry.deadLetter(), entry.subscription().id(), target, n, reason)
        .whenComplete((ok, dlError) -> {
          if (dlError == null) {
            result.complete(Result.DEAD_LETTERED);
          } else {
            result.completeExceptionally(unwrap(dlError));
          }
        });
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }
}
