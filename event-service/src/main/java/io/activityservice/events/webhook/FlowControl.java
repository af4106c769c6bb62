package io.activityservice.events.webhook;

import io.activityservice.channel.support.DaemonThreads;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * Flow control towards webhook targets, per subscription: a Resilience4j {@link RateLimiter} (the
 * subscription's {@code ratePerSecond} and {@code burst}, divided by the live replicas) and a
 * Resilience4j {@link CircuitBreaker} (open after {@code failures} failed requests in a row, one
 * probe after {@code openFor}). An attempt either may go, or is {@link DeliveryDeferred deferred}:
 * the delivery then waits in the durable store (no thread waits), and the retry worker tries it
 * again when the limiter has a permit or the breaker lets a probe through. Other subscriptions'
 * limiters and breakers are their own: a slow or dead target holds back only its deliveries.
 *
 * <p>Why divide by the live replicas rather than share a counter in the database: a permit per
 * request from the database would add a write per delivery on the hot path; the replicas know how
 * many of them are live (the cluster heartbeat), and each gets an equal share of the rate. The
 * share follows the membership within seconds; a replica that starts or stops moves the total
 * briefly by one share at most.
 */
public final class FlowControl implements AutoCloseable {

  /** A target's state for the deliveries view. */
  public record TargetState(
      String circuit,
      Double ratePerSecond,
      double replicaShare,
      long sentLastSecond,
      long deferred,
      String lastError) {}

  private final class Target {
    final String subscriptionId;
    final TargetSettings.Flow flow;
    volatile int replicas;
    volatile RateLimiter limiter;
    final CircuitBreaker breaker;
    final AtomicLong openedAt = new AtomicLong();
    final AtomicLong deferred = new AtomicLong();
    final AtomicLong second = new AtomicLong();
    final AtomicLong sentThisSecond = new AtomicLong();
    volatile long sentLastSecond;
    volatile String lastError;

    Target(String subscriptionId, TargetSettings.Flow flow, int replicas) {
      this.subscriptionId = subscriptionId;
      this.flow = flow;
      this.replicas = replicas;
      this.limiter = flow.ratePerSecond() == null ? null : limiter(subscriptionId, flow, replicas);
      this.breaker = flow.hasBreaker() ? breaker(subscriptionId, flow) : null;
      if (breaker != null) {
        breaker
            .getEventPublisher()
            .onStateTransition(
                e -> {
                  if (e.getStateTransition().getToState() == CircuitBreaker.State.OPEN) {
                    openedAt.set(clock.millis());
                  }
                });
      }
    }

    /** The live replicas changed: a new share of the rate (the breaker keeps its counts). */
    void resize(int n) {
      if (flow.ratePerSecond() != null) {
        limiter = limiter(subscriptionId, flow, n);
      }
      replicas = n;
    }

    void countSend() {
      long now = clock.millis() / 1000;
      long s = second.get();
      if (s != now && second.compareAndSet(s, now)) {
        sentLastSecond = s == now - 1 ? sentThisSecond.getAndSet(0) : 0;
        if (s != now - 1) {
          sentThisSecond.set(0);
        }
      }
      sentThisSecond.incrementAndGet();
    }
  }

  /** Longest a deferred delivery may hold a reserved rate-limit slot ahead. */
  private static final Duration MAX_RESERVATION = Duration.ofMinutes(10);

  private final Clock clock;
  private final IntSupplier liveReplicas;
  private final ExecutorService refresher =
      Executors.newSingleThreadExecutor(DaemonThreads.factory("webhook-flow"));
  private final MeterRegistry meters;
  private final int maxGauges;
  private final Map<String, Target> targets = new ConcurrentHashMap<>();
  private final AtomicBoolean refreshing = new AtomicBoolean();
  private volatile int replicas = 1;
  private volatile long replicasReadAt;

  /**
   * @param liveReplicas counts the live replicas (a database read: called off the hot path, on this
   *     instance's own thread, at most every few seconds)
   * @param meters where the breaker-state gauges go ({@code activity.webhook.circuit.state})
   * @param maxGauges most subscriptions with a gauge
   */
  public FlowControl(Clock clock, IntSupplier liveReplicas, MeterRegistry meters, int maxGauges) {
    this.clock = clock;
    this.liveReplicas = liveReplicas;
    this.meters = meters;
    this.maxGauges = maxGauges;
  }

  private static RateLimiter limiter(String id, TargetSettings.Flow flow, int replicas) {
    double rate = flow.ratePerSecond() / Math.max(1, replicas);
    int burst =
        Math.max(1, (int) Math.floor(flow.effectiveBurst() / (double) Math.max(1, replicas)));
    // Resilience4j hands out limitForPeriod permits per period: burst permits every burst/rate s.
    long periodNanos = Math.max(1_000_000L, (long) (burst / rate * 1e9));
    return RateLimiter.of(
        "webhook-" + id,
        RateLimiterConfig.custom()
            .limitForPeriod(burst)
            .limitRefreshPeriod(Duration.ofNanos(periodNanos))
            // Only reservePermission() is called (never blocks): a reservation may wait this long.
            .timeoutDuration(MAX_RESERVATION)
            .build());
  }

  private static CircuitBreaker breaker(String id, TargetSettings.Flow flow) {
    return CircuitBreaker.of(
        "webhook-" + id,
        CircuitBreakerConfig.custom()
            .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
            .slidingWindowSize(flow.breakerFailures())
            .minimumNumberOfCalls(flow.breakerFailures())
            // Every call in the window failed: that many failures in a row.
            .failureRateThreshold(100)
            .waitDurationInOpenState(flow.breakerOpenFor())
            .permittedNumberOfCallsInHalfOpenState(1)
            .recordException(e -> !(e instanceof DeliveryDeferred))
            .build());
  }

  private Target target(String subscriptionId, TargetSettings.Flow flow) {
    refreshReplicas();
    int n = replicas;
    Target t = targets.get(subscriptionId);
    if (t != null && t.flow.equals(flow)) {
      if (t.replicas != n) {
        synchronized (t) {
          if (t.replicas != n) {
            t.resize(n);
          }
        }
      }
      return t;
    }
    Target fresh = new Target(subscriptionId, flow, n);
    Target previous = targets.put(subscriptionId, fresh);
    if (previous == null
        && meters != null
        && targets.size() <= maxGauges
        && fresh.breaker != null) {
      Gauge.builder("activity.webhook.circuit.state", this, f -> f.stateCode(subscriptionId))
          .description(
              "Circuit breaker of a webhook subscription's target: 0 closed, 1 open, 2 half-open")
          .tag("subscription", subscriptionId)
          .register(meters);
    }
    return fresh;
  }

  private double stateCode(String subscriptionId) {
    Target t = targets.get(subscriptionId);
    if (t == null || t.breaker == null) {
      return 0;
    }
    return switch (t.breaker.getState()) {
      case OPEN, FORCED_OPEN -> 1;
      case HALF_OPEN -> 2;
      default -> 0;
    };
  }

  private void refreshReplicas() {
    long now = clock.millis();
    if (now - replicasReadAt < 5_000 || !refreshing.compareAndSet(false, true)) {
      return;
    }
    replicasReadAt = now;
    try {
      refresher.execute(
          () -> {
            try {
              replicas = Math.max(1, liveReplicas.getAsInt());
            } catch (RuntimeException e) {
              // Keep the last count; the next attempt tries again.
            } finally {
              refreshing.set(false);
            }
          });
    } catch (RuntimeException e) {
      refreshing.set(false);
    }
  }

  /**
   * Asks to make one attempt at a subscription's target.
   *
   * @param reserved whether the delivery holds a rate-limit slot reserved when it was deferred
   * @return the permit to report the attempt's end to ({@link Permit#done})
   * @throws DeliveryDeferred if the breaker is open (or probing) or the rate limit is reached
   */
  public Permit acquire(String subscriptionId, TargetSettings.Flow flow, boolean reserved) {
    Target t = target(subscriptionId, flow);
    if (t.breaker != null && !t.breaker.tryAcquirePermission()) {
      t.deferred.incrementAndGet();
      long delay;
      if (t.breaker.getState() == CircuitBreaker.State.OPEN) {
        long reopen = t.openedAt.get() + flow.breakerOpenFor().toMillis() - clock.millis();
        delay = Math.max(50, reopen);
      } else {
        delay = Math.min(1_000, Math.max(50, flow.breakerOpenFor().toMillis() / 4));
      }
      throw new DeliveryDeferred(
          "circuit breaker "
              + t.breaker.getState().name().toLowerCase(java.util.Locale.ROOT)
              + " after "
              + flow.breakerFailures()
              + " failures in a row",
          jitter(delay));
    }
    RateLimiter limiter = t.limiter;
    if (limiter != null && !reserved) {
      // Reserve the next free slot: now (go), or ahead (wait in the store until then, holding it).
      long nanos = limiter.reservePermission();
      if (nanos != 0) {
        if (t.breaker != null) {
          t.breaker.releasePermission();
        }
        t.deferred.incrementAndGet();
        String limit = "rate limit " + flow.ratePerSecond() + "/s";
        if (nanos < 0) {
          throw new DeliveryDeferred(
              limit + " reached, no slot within " + MAX_RESERVATION, MAX_RESERVATION.toMillis());
        }
        throw new DeliveryDeferred(
            DeliveryDeferred.RESERVED + limit, Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
      }
    }
    t.countSend();
    return new Permit(t, System.nanoTime());
  }

  private static long jitter(long delay) {
    return delay + jitterUpTo(Math.max(1, delay / 10));
  }

  private static long jitterUpTo(long bound) {
    return bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound + 1);
  }

  /** An attempt let through; tell it how it ended. */
  public final class Permit {
    private final Target target;
    private final long startNanos;

    private Permit(Target target, long startNanos) {
      this.target = target;
      this.startNanos = startNanos;
    }

    /**
     * The attempt ended.
     *
     * @param error {@code null} if the target accepted it
     * @param describe the error as the deliveries view shows it
     */
    public void done(Throwable error, String describe) {
      long nanos = System.nanoTime() - startNanos;
      if (error == null) {
        if (target.breaker != null) {
          target.breaker.onSuccess(nanos, TimeUnit.NANOSECONDS);
        }
        return;
      }
      target.lastError = describe;
      if (target.breaker != null) {
        target.breaker.onError(nanos, TimeUnit.NANOSECONDS, error);
      }
    }
  }

  /** The state of a subscription's target, or {@code null} if it has no flow settings in use. */
  public TargetState state(String subscriptionId) {
    Target t = targets.get(subscriptionId);
    if (t == null) {
      return null;
    }
    t.countSend();
    t.sentThisSecond.decrementAndGet(); // rolls the second over without counting a send
    return new TargetState(
        t.breaker == null
            ? "none"
            : switch (t.breaker.getState()) {
              case OPEN, FORCED_OPEN -> "open";
              case HALF_OPEN -> "half-open";
              default -> "closed";
            },
        t.flow.ratePerSecond(),
        t.flow.ratePerSecond() == null ? 0 : t.flow.ratePerSecond() / Math.max(1, t.replicas),
        t.sentLastSecond,
        t.deferred.get(),
        t.lastError);
  }

  /** Forgets a deleted subscription's target. */
  public void forget(String subscriptionId) {
    targets.remove(subscriptionId);
  }

  /** Stops the thread that counts the live replicas. */
  @Override
  public void close() {
    refresher.shutdownNow();
  }
}
