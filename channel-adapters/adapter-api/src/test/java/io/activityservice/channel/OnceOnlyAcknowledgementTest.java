package io.activityservice.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OnceOnlyAcknowledgementTest {

  /** Counts the hooks it lets through. */
  private static final class Counting extends OnceOnlyAcknowledgement {
    final AtomicInteger acks = new AtomicInteger();
    final AtomicInteger nacks = new AtomicInteger();

    @Override
    protected void onAck() {
      acks.incrementAndGet();
    }

    @Override
    protected void onNack(Throwable cause) {
      nacks.incrementAndGet();
    }
  }

  @Test
  void onlyTheFirstCallReachesAHook() {
    Counting ack = new Counting();
    assertThat(ack.isSettled()).isFalse();
    ack.nack(new IllegalStateException("first"));
    ack.ack();
    ack.nack(null);
    assertThat(ack.isSettled()).isTrue();
    assertThat(ack.nacks.get()).isEqualTo(1);
    assertThat(ack.acks.get()).isZero();
  }

  @Test
  void racingThreadsSettleExactlyOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      for (int round = 0; round < 200; round++) {
        Counting ack = new Counting();
        CountDownLatch start = new CountDownLatch(1);
        List<java.util.concurrent.Future<?>> calls = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          boolean nack = t % 2 == 0;
          calls.add(
              pool.submit(
                  () -> {
                    start.await();
                    if (nack) {
                      ack.nack(null);
                    } else {
                      ack.ack();
                    }
                    return null;
                  }));
        }
        start.countDown();
        for (var call : calls) {
          call.get(10, TimeUnit.SECONDS);
        }
        assertThat(ack.acks.get() + ack.nacks.get()).as("round " + round).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aThrowingHookIsNotThrownToTheCaller() {
    OnceOnlyAcknowledgement failing =
        new OnceOnlyAcknowledgement() {
          @Override
          protected void onAck() {
            throw new IllegalStateException("transport gone");
          }

          @Override
          protected void onNack(Throwable cause) {
            throw new IllegalStateException("transport gone");
          }
        };
    failing.ack();
    failing.nack(null);
    assertThat(failing.isSettled()).isTrue();
  }
}
