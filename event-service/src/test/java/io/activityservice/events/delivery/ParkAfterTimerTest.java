package io.activityservice.events.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The park-after timer parks first attempts still running at their deadline, and schedules nothing
 * while nothing is pending: an idle service has no timer task (issue 20: no 50 ms sweep for
 * nothing).
 */
class ParkAfterTimerTest {

  private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

  @AfterEach
  void tearDown() {
    scheduler.shutdownNow();
  }

  /** A first attempt that runs until settled or parked. */
  private static final class Attempt implements ParkAfterTimer.Entry {
    private final long start = System.nanoTime();
    private volatile boolean pending = true;
    private final AtomicInteger parked = new AtomicInteger();
    private volatile long parkedAfterNanos;

    @Override
    public long startNanos() {
      return start;
    }

    @Override
    public boolean isPending() {
      return pending;
    }

    @Override
    public void parkAfterElapsed() {
      parkedAfterNanos = System.nanoTime() - start;
      parked.incrementAndGet();
      pending = false;
    }

    void settle() {
      pending = false;
    }
  }

  @Test
  void schedulesNothingUntilADeliveryIsPendingAndNothingOnceAllAreDone() {
    ParkAfterTimer timer = new ParkAfterTimer(Duration.ofMillis(200), scheduler);
    assertThat(scheduler.getQueue()).as("idle: no task").isEmpty();

    Attempt slow = new Attempt();
    Attempt fast = new Attempt();
    timer.add(slow);
    timer.add(fast);
    assertThat(scheduler.getQueue()).as("one sweep for both").hasSize(1);
    fast.settle();

    await().atMost(Duration.ofSeconds(5)).until(() -> slow.parked.get() == 1);
    assertThat(slow.parkedAfterNanos)
        .as("not before park-after")
        .isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
    assertThat(fast.parked).as("a settled delivery is not parked").hasValue(0);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> scheduler.getQueue().isEmpty() && scheduler.getActiveCount() == 0);
    long sweeps = scheduler.getCompletedTaskCount();
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> scheduler.getQueue().isEmpty() && scheduler.getCompletedTaskCount() == sweeps);
  }

  @Test
  void aDeliveryAddedAfterAQuietSpellIsParkedAtItsOwnDeadline() {
    ParkAfterTimer timer = new ParkAfterTimer(Duration.ofMillis(100), scheduler);
    Attempt first = new Attempt();
    timer.add(first);
    await().atMost(Duration.ofSeconds(5)).until(() -> first.parked.get() == 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.getQueue().isEmpty());

    Attempt second = new Attempt();
    timer.add(second);
    await().atMost(Duration.ofSeconds(5)).until(() -> second.parked.get() == 1);
    assertThat(second.parkedAfterNanos).isGreaterThanOrEqualTo(Duration.ofMillis(100).toNanos());
    assertThat(first.parked).as("parked once").hasValue(1);
  }

  @Test
  void parksEveryPendingDeliveryOnceUnderAStream() throws Exception {
    ParkAfterTimer timer = new ParkAfterTimer(Duration.ofMillis(50), scheduler);
    Attempt[] attempts = new Attempt[200];
    for (int i = 0; i < attempts.length; i++) {
      attempts[i] = new Attempt();
      timer.add(attempts[i]);
      if (i % 2 == 0) {
        attempts[i].settle();
      }
      Thread.sleep(1);
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              for (int i = 1; i < attempts.length; i += 2) {
                if (attempts[i].parked.get() != 1) {
                  return false;
                }
              }
              return true;
            });
    for (int i = 0; i < attempts.length; i += 2) {
      assertThat(attempts[i].parked).hasValue(0);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.getQueue().isEmpty());
  }
}
