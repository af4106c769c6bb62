package io.activityservice.events.delivery;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.RetryAfterHint;
import io.activityservice.channel.support.Futures;
import io.activityservice.events.subscription.Ordering;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.webhook.DeliveryDeferred;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;

/**
 * Decides, after an attempt on a parked delivery, what the store does with it: delete it
 * (delivered), schedule the next attempt (the subscription's backoff), or give it up (dead letter).
 * The one place that applies a subscription's {@link RetryPolicy} to a parked delivery, for first
 * attempts that outlived {@code park-after} and for the retry worker's attempts alike. Every write
 * is fenced by the row's lock token.
 */
final class Settler {

  /** Wait before handing a dead letter to a failing dead-letter channel again. */
  private static final long DEAD_LETTER_RETRY_MILLIS = 5_000;

  private final StoreWriter writer;
  private final DeadLetters deadLetters;
  private final DeliveryMetrics metrics;
  private final Clock clock;
  private final Runnable keyFreed;

  /**
   * @param keyFreed called once the head of an ordered key left the retry cycle (delivered or given
   *     up, committed): the next of its key may go now, so the retry worker claims again without
   *     waiting for its poll interval
   */
  Settler(
      StoreWriter writer,
      DeadLetters deadLetters,
      DeliveryMetrics metrics,
      Clock clock,
      Runnable keyFreed) {
    this.writer = writer;
    this.deadLetters = deadLetters;
    this.metrics = metrics;
    this.clock = clock;
    this.keyFreed = keyFreed;
  }

  /** After an attempt at the subscription's target ({@code error == null}: delivered). */
  CompletableFuture<Void> afterAttempt(
      ParkedDelivery row, SubscriptionIndex.Entry entry, Throwable error) {
    DeliveryStore.Claim claim = claim(row);
    if (error == null) {
      return freesKey(row, writer.delete(claim));
    }
    long now = clock.millis();
    RetryPolicy policy = entry.subscription().retry();
    Throwable cause = Futures.unwrap(error);
    Ordering ordering = entry.subscription().ordering();
    if (row.orderingKey() != null && ordering != null) {
      long next =
          cause instanceof DeliveryDeferred deferred
              ? deferred.delayMillis()
              : delayAfter(policy, Math.max(1, row.attempts()), cause);
      long since = row.blockingSince() != null ? row.blockingSince() : now;
      if (now + next - since > ordering.maxWait().toMillis()) {
        // Bounded head-of-line blocking: the later events of the key must not wait any longer.
        String failure = "attempt " + row.attempts() + ": " + describe(error);
        return freesKey(
            row,
            giveUp(
                claim,
                entry,
                "gave up: ordering.maxWait="
                    + ordering.maxWait()
                    + " would pass while this event holds up the later events of its key ("
                    + ordering.key().expression()
                    + "="
                    + row.orderingKey()
                    + "); last "
                    + failure,
                failure,
                now));
      }
    }
    if (cause instanceof DeliveryDeferred deferred
        && now - row.receivedAt() + deferred.delayMillis() < policy.maxAge().toMillis()) {
      // Held back by the target's flow control: wait without counting an attempt.
      return release(row, deferred.delayMillis(), "deferred: " + deferred.getMessage());
    }
    String failure = "attempt " + row.attempts() + ": " + describe(error);
    long delay = delayAfter(policy, Math.max(1, row.attempts()), cause);
    if (!(cause instanceof DeliveryDeferred)
        && policy.allowsAnotherAttempt(row.attempts(), now - row.receivedAt(), delay)) {
      return writer.reschedule(
          new DeliveryStore.Reschedule(claim, now + delay, failure, now, null));
    }
    String reason =
        (row.attempts() >= policy.maxAttempts()
                ? "gave up after "
                    + row.attempts()
                    + " of retry.maxAttempts="
                    + policy.maxAttempts()
                    + " attempts"
                : "gave up after "
                    + row.attempts()
                    + " attempts: retry.maxAge="
                    + policy.maxAge()
                    + " reached")
            + "; last "
            + failure;
    return freesKey(row, giveUp(claim, entry, reason, failure, now));
  }

  /** Wakes the retry worker once {@code write} committed, if {@code row} held up its key. */
  private CompletableFuture<Void> freesKey(ParkedDelivery row, CompletableFuture<Void> write) {
    return row.orderingKey() == null ? write : write.thenRun(keyFreed);
  }

  /**
   * Gives a claimed delivery up: to the dead-letter phase if there is a channel, else straight to
   * the table.
   */
  CompletableFuture<Void> giveUp(
      DeliveryStore.Claim claim,
      SubscriptionIndex.Entry entry,
      String reason,
      String error,
      long now) {
    String subscription = entry.subscription().id();
    metrics.deadLettered(subscription, entry.target().toString(), 1);
    if (deadLetters.channelFor(entry.deadLetter()) != null) {
      return writer.giveUp(new DeliveryStore.GiveUp(claim, reason, error, now));
    }
    return writer.bury(new DeliveryStore.Bury(claim, origin(entry), reason, now));
  }

  /** After handing a given-up delivery to the dead-letter channel. */
  CompletableFuture<Void> afterDeadLetterSend(
      ParkedDelivery row, SubscriptionIndex.Entry entry, Throwable error) {
    long now = clock.millis();
    if (error == null) {
      return writer.bury(
          new DeliveryStore.Bury(claim(row), origin(entry), row.deadLetterReason(), now));
    }
    return writer.reschedule(
        new DeliveryStore.Reschedule(
            claim(row),
            now + DEAD_LETTER_RETRY_MILLIS,
            "dead-letter channel "
                + deadLetterChannel(entry)
                + " refused the event: "
                + describe(error),
            now,
            null));
  }

  /** Puts a claimed row back without counting the attempt it was claimed for. */
  CompletableFuture<Void> release(ParkedDelivery row, long delayMillis, String why) {
    long now = clock.millis();
    int attempts =
        row.phase() == ParkedDelivery.Phase.RETRY
            ? Math.max(0, row.attempts() - 1)
            : row.attempts();
    return writer.reschedule(
        new DeliveryStore.Reschedule(claim(row), now + delayMillis, why, now, attempts));
  }

  String deadLetterChannel(SubscriptionIndex.Entry entry) {
    ChannelUri to = deadLetters.channelFor(entry.deadLetter());
    return to == null ? "(none)" : io.activityservice.channel.Redaction.uri(to.toString());
  }

  static String origin(SubscriptionIndex.Entry entry) {
    return io.activityservice.channel.Redaction.uri(entry.target().toString());
  }

  static DeliveryStore.Claim claim(ParkedDelivery row) {
    return new DeliveryStore.Claim(row.id(), row.lockToken());
  }

  /**
   * The wait before the next attempt: the policy's backoff, or longer if the target asked for it
   * ({@code Retry-After} on a 429 or 503); {@code maxAge} bounds it where it is checked.
   */
  static long delayAfter(RetryPolicy policy, int attempt, Throwable cause) {
    long backoff = policy.backoff(attempt).toMillis();
    if (cause instanceof RetryAfterHint hint && hint.retryAfter() != null) {
      return Math.max(backoff, hint.retryAfter().toMillis());
    }
    return backoff;
  }

  static String describe(Throwable error) {
    Throwable t = Futures.unwrap(error);
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }
}
