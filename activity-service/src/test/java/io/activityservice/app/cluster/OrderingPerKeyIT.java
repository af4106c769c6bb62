package io.activityservice.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.support.Api;
import io.activityservice.app.support.PackagedService;
import io.activityservice.app.support.ServiceCluster;
import io.activityservice.app.support.WebhookReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Ordering per key across three packaged replicas on one PostgreSQL, with a SIGKILL mid-stream: 10
 * keys × 200 events are published over REST, each key's events one after the other (the next once
 * the previous one was answered) and spread over the replicas; the webhook answers 503 for key
 * {@code k0} for the first 5 s. Every key's events must arrive in order, and the other keys must
 * not be held up by {@code k0}.
 *
 * <p>Duplicates: delivery is at-least-once (a replica killed after the target took an event but
 * before it committed the delete sends nothing more, and the event's lease ends and another replica
 * sends it again; a publish cut by the kill is published again on another replica). So the check is
 * on the <em>first</em> arrival of each event: per key, the first arrivals must be 0, 1, …, 199 in
 * that order; later copies are counted and reported, not failed.
 */
class OrderingPerKeyIT {

  static final int KEYS = 10;
  static final int PER_KEY = 200;
  static final long FAILING_MILLIS = 5_000;
  static final long PACE_MILLIS = 40; // each key publishes for ~8 s
  static final long KILL_AT_MILLIS = 6_500;
  static final Pattern KEY_AND_N = Pattern.compile("\"k\":\"([a-z]\\d+)\",\"n\":(\\d+)");

  @Test
  void everyKeyArrivesInOrderAndTheOtherKeysAreNotHeldUpAcrossThreeReplicasAndAKill()
      throws Exception {
    try (WebhookReceiver webhook = new WebhookReceiver();
        ServiceCluster cluster =
            ServiceCluster.start(
                "ordering-it",
                PackagedService.jar(),
                List.of("a", "b", "c"),
                name ->
                    List.of(
                        "--activity.cluster.apply-wait=120s",
                        "--activity.outbound.allowed-networks=127.0.0.0/8"))) {
      List<Api> apis = cluster.apis();
      AtomicBoolean k0Failing = new AtomicBoolean(false);
      webhook.respond(
          "/ordered",
          (call, headers) -> k0Failing.get() && call.body().contains("\"k\":\"k0\"") ? 503 : 204);
      Api.Response sub =
          apis.get(0)
              .postJson(
                  "/api/v1/subscriptions",
                  """
              {"name": "ordered", "pattern": {"type": ["com.example.ordered"]}, "target": "%s",
               "retry": {"maxAttempts": 185, "initialBackoff": "PT0.1S", "maxBackoff": "PT0.5S", "maxAge": "PT10M"},
               "ordering": {"key": "data.k", "maxWait": "PT2M"}}"""
                      .formatted(webhook.url("/ordered")));
      assertThat(sub.status()).as(sub.body()).isEqualTo(201);
      // A service that ignored "ordering" (e.g. an older jar) would deliver unordered and fail
      // only in the failing phase, as a shuffle: say what is wrong here instead.
      assertThat(sub.body())
          .as("the created subscription keeps its ordering (the jar under test supports it)")
          .contains("\"ordering\"")
          .contains("data.k");
      Set<Integer> dead = ConcurrentHashMap.newKeySet();

      // A warm-up run (keys w0-w9: fresh JVMs are several times slower), then the same run
      // without the failure and the kill (keys b0-b9): the baseline.
      Phase warmUp = Phase.publish("w", apis, dead);
      warmUp.await(webhook);
      warmUp.assertInOrder(webhook);
      Phase baseline = Phase.publish("b", apis, dead);
      baseline.await(webhook);
      baseline.assertInOrder(webhook);
      Lags base =
          baseline.lags(webhook, baseline.start + TimeUnit.MILLISECONDS.toNanos(FAILING_MILLIS));

      k0Failing.set(true);
      Phase phase = Phase.publish("k", apis, dead);
      CompletableFuture<Void> stopFailing =
          CompletableFuture.runAsync(
              () -> k0Failing.set(false),
              CompletableFuture.delayedExecutor(
                  FAILING_MILLIS - (System.nanoTime() - phase.start) / 1_000_000,
                  TimeUnit.MILLISECONDS));
      long sleepUntilKill = KILL_AT_MILLIS - (System.nanoTime() - phase.start) / 1_000_000;
      await()
          .pollDelay(Duration.ofMillis(Math.max(1, sleepUntilKill)))
          .atMost(Duration.ofMillis(Math.max(1, sleepUntilKill) + 1_000))
          .until(() -> true);
      dead.add(2);
      cluster.replicas().get(2).kill(); // SIGKILL, mid-stream: publishing and delivering go on
      long killedAt = System.nanoTime();
      stopFailing.get(10, TimeUnit.SECONDS);
      phase.await(webhook);
      phase.assertInOrder(webhook);

      Lags lags = phase.lags(webhook, phase.start + TimeUnit.MILLISECONDS.toNanos(FAILING_MILLIS));
      int duplicates = webhook.calls("/ordered").size() - 3 * KEYS * PER_KEY;
      System.out.printf(
          "ordering per key (3 replicas, PostgreSQL, replica c SIGKILLed at %d ms): %d keys x %d"
              + " events in order; events published while k0 failed (first %d ms): other keys"
              + " delivered p50 %d ms, p99 %d ms, max %d ms after their publish answer, k0 max %d ms"
              + " (other keys' p99 / k0's max = %.3f); the same first %d ms without failure or kill:"
              + " p50 %d ms, p99 %d ms, max %d ms (p99 with / without the failure = %.2f); last"
              + " arrival from the start: other keys %d ms, k0 %d ms (ratio %.2f), without failure"
              + " %d ms; %d duplicates, %d publishes repeated after the kill%n",
          (killedAt - phase.start) / 1_000_000,
          KEYS,
          PER_KEY,
          FAILING_MILLIS,
          lags.p50,
          lags.p99,
          lags.max,
          lags.k0Max,
          (double) lags.p99 / Math.max(1, lags.k0Max),
          FAILING_MILLIS,
          base.p50,
          base.p99,
          base.max,
          (double) lags.p99 / Math.max(1, base.p99),
          lags.othersDone,
          lags.k0Done,
          (double) lags.othersDone / Math.max(1, lags.k0Done),
          Math.max(base.othersDone, base.k0Done),
          duplicates,
          phase.republished.get());
      assertThat(lags.k0Max)
          .as("k0's events published during its failure waited for it")
          .isGreaterThan(FAILING_MILLIS / 2);
      assertThat(lags.p99)
          .as("the other keys were not held up by k0 (p99 delay while k0 failed)")
          .isLessThan(FAILING_MILLIS / 2);
    }
  }

  /**
   * Delays from the publish answer to the first arrival, in ms, of the events published before
   * {@code until}: the other keys' p50, p99 and max, key 0's max; and when the last event of the
   * other keys and of key 0 first arrived, from the start.
   */
  record Lags(long p50, long p99, long max, long k0Max, long othersDone, long k0Done) {}

  /** One run of KEYS × PER_KEY events, keys {@code <prefix>0} … {@code <prefix>9}. */
  static final class Phase {
    final String prefix;
    final long start = System.nanoTime();
    final long[][] answeredAt = new long[KEYS][PER_KEY];
    final AtomicInteger republished = new AtomicInteger();
    final List<CompletableFuture<Void>> publishing = new ArrayList<>();

    private Phase(String prefix) {
      this.prefix = prefix;
    }

    static Phase publish(String prefix, List<Api> apis, Set<Integer> dead) {
      Phase p = new Phase(prefix);
      ExecutorService producers = Executors.newFixedThreadPool(KEYS);
      for (int k = 0; k < KEYS; k++) {
        int key = k;
        p.publishing.add(
            CompletableFuture.runAsync(
                () ->
                    publishKey(apis, prefix, key, p.start, p.answeredAt[key], dead, p.republished),
                producers));
      }
      producers.shutdown();
      return p;
    }

    void await(WebhookReceiver webhook) throws Exception {
      CompletableFuture.allOf(publishing.toArray(CompletableFuture[]::new))
          .get(120, TimeUnit.SECONDS);
      Awaitility.await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  firstArrivals(webhook, prefix).values().stream()
                      .allMatch(l -> l.size() == PER_KEY));
    }

    void assertInOrder(WebhookReceiver webhook) {
      Map<String, List<Arrival>> first = firstArrivals(webhook, prefix);
      List<Integer> expected = new ArrayList<>();
      for (int n = 0; n < PER_KEY; n++) {
        expected.add(n);
      }
      for (int k = 0; k < KEYS; k++) {
        assertThat(first.get(prefix + k).stream().map(Arrival::n).toList())
            .as("first arrivals of %s%d, in arrival order", prefix, k)
            .isEqualTo(expected);
      }
    }

    Lags lags(WebhookReceiver webhook, long until) {
      Map<String, List<Arrival>> first = firstArrivals(webhook, prefix);
      List<Long> others = new ArrayList<>();
      long k0Max = 0;
      for (int k = 0; k < KEYS; k++) {
        for (Arrival a : first.get(prefix + k)) {
          long answered = answeredAt[k][a.n()];
          if (answered == 0 || answered > until) {
            continue;
          }
          long lag = Math.max(0, a.atNanos() - answered) / 1_000_000;
          if (k == 0) {
            k0Max = Math.max(k0Max, lag);
          } else {
            others.add(lag);
          }
        }
      }
      long[] sorted = others.stream().mapToLong(Long::longValue).sorted().toArray();
      long othersDone = 0;
      for (int k = 1; k < KEYS; k++) {
        othersDone = Math.max(othersDone, (last(first.get(prefix + k)) - start) / 1_000_000);
      }
      return new Lags(
          sorted[sorted.length / 2],
          sorted[(int) Math.ceil(sorted.length * 0.99) - 1],
          sorted[sorted.length - 1],
          k0Max,
          othersDone,
          (last(first.get(prefix + 0)) - start) / 1_000_000);
    }
  }

  /** One event's first arrival at the webhook. */
  record Arrival(int n, long atNanos) {}

  private static long last(List<Arrival> arrivals) {
    return arrivals.get(arrivals.size() - 1).atNanos();
  }

  /** Per key, the first arrival of each event, in arrival order. */
  private static Map<String, List<Arrival>> firstArrivals(WebhookReceiver webhook, String prefix) {
    Map<String, List<Arrival>> byKey = new ConcurrentHashMap<>();
    Map<String, Set<Integer>> seen = new ConcurrentHashMap<>();
    for (int k = 0; k < KEYS; k++) {
      byKey.put(prefix + k, new ArrayList<>());
      seen.put(prefix + k, new HashSet<>());
    }
    for (WebhookReceiver.Call c : webhook.calls("/ordered")) {
      Matcher m = KEY_AND_N.matcher(c.body());
      if (!m.find()) {
        throw new AssertionError("unexpected body: " + c.body());
      }
      int n = Integer.parseInt(m.group(2));
      if (m.group(1).startsWith(prefix) && seen.get(m.group(1)).add(n)) {
        byKey.get(m.group(1)).add(new Arrival(n, c.receivedAtNanos()));
      }
    }
    return byKey;
  }

  /**
   * Publishes one key's events in order, each once the previous one was answered, spread over the
   * live replicas; a publish that fails (the replica was killed) is repeated on the next one.
   */
  private static void publishKey(
      List<Api> apis,
      String prefix,
      int key,
      long start,
      long[] answeredAt,
      Set<Integer> dead,
      AtomicInteger republished) {
    for (int n = 0; n < PER_KEY; n++) {
      long due = start + TimeUnit.MILLISECONDS.toNanos(n * PACE_MILLIS);
      long wait = due - System.nanoTime();
      if (wait > 0) {
        java.util.concurrent.locks.LockSupport.parkNanos(wait);
      }
      String event =
          """
          {"specversion": "1.0", "id": "ord-%s%d-%d", "source": "/ordering-it", "type": "com.example.ordered",
           "datacontenttype": "application/json", "data": {"k":"%s%d","n":%d}}"""
              .formatted(prefix, key, n, prefix, key, n);
      int replica = (key + n) % apis.size();
      for (int tries = 0; ; tries++) {
        if (tries > 20) {
          throw new AssertionError(
              prefix + key + " event " + n + " was not accepted by any replica");
        }
        if (dead.contains(replica)) {
          replica = (replica + 1) % apis.size();
          continue;
        }
        try {
          Api.Response r = apis.get(replica).publish(event);
          if (r.status() == 202) {
            answeredAt[n] = System.nanoTime();
            break;
          }
        } catch (RuntimeException e) {
          // The replica was killed while it had the request: published again on the next one.
        }
        if (tries == 0) {
          republished.incrementAndGet();
        }
        replica = (replica + 1) % apis.size();
      }
    }
  }
}
