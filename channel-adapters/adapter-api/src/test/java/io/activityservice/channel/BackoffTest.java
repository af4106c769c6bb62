package io.activityservice.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private static final Backoff ONE_TO_SIXTY =
      new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));

  @Test
  void ceilingDoublesFromInitialUpToMax() {
    List<Duration> ceilings = new ArrayList<>();
    for (int attempt = 1; attempt <= 8; attempt++) {
      ceilings.add(ONE_TO_SIXTY.ceiling(attempt));
    }
    assertThat(ceilings)
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(8),
            Duration.ofSeconds(16),
            Duration.ofSeconds(32),
            Duration.ofSeconds(60),
            Duration.ofSeconds(60));
  }

  @Test
  void hugeAttemptNumbersSaturateAtMaxInsteadOfOverflowing() {
    assertThat(ONE_TO_SIXTY.ceiling(63)).isEqualTo(Duration.ofSeconds(60));
    assertThat(ONE_TO_SIXTY.ceiling(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(60));
    assertThat(new Backoff(Duration.ofNanos(1), Duration.ofDays(3650)).ceiling(100))
        .isEqualTo(Duration.ofDays(3650));
  }

  @Test
  void fullJitterDrawsFromZeroToTheCeiling() {
    long below = 0;
    long above = 0;
    for (int i = 0; i < 2000; i++) {
      Duration d = ONE_TO_SIXTY.delay(3);
      assertThat(d).isBetween(Duration.ZERO, Duration.ofSeconds(4));
      if (d.compareTo(Duration.ofSeconds(1)) < 0) {
        below++;
      }
      if (d.compareTo(Duration.ofSeconds(3)) > 0) {
        above++;
      }
    }
    // Uniform on [0, 4s]: about a quarter on each side; far from "always the ceiling" or "always
    // 0".
    assertThat(below).isBetween(300L, 700L);
    assertThat(above).isBetween(300L, 700L);
  }

  @Test
  void withoutJitterTheDelayIsTheCeiling() {
    Backoff exact = ONE_TO_SIXTY.withoutJitter();
    assertThat(exact.delay(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(exact.delay(3)).isEqualTo(Duration.ofSeconds(4));
    assertThat(exact.delay(30)).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void rejectsNonsenseSayingWhatIsExpected() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be positive");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("must not be less than its initial delay");
    assertThatThrownBy(() -> ONE_TO_SIXTY.delay(0)).hasMessageContaining("count from 1");
  }

  @Test
  void redeliverySettingsDefaultToOneSecondDoublingToSixtyWithJitter() {
    RedeliverySettings defaults = RedeliverySettings.defaults();
    assertThat(defaults.backoff())
        .isEqualTo(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60), true));
    assertThat(new RedeliverySettings(Duration.ofMinutes(2), null, null).max())
        .isEqualTo(Duration.ofMinutes(2));
    assertThatThrownBy(
            () -> new RedeliverySettings(Duration.ofSeconds(5), Duration.ofSeconds(1), null))
        .hasMessageContaining("redelivery.max");
    assertThatThrownBy(() -> new RedeliverySettings(null, Duration.ofHours(13), null))
        .hasMessageContaining("12h");
    assertThatThrownBy(() -> new RedeliverySettings(Duration.ZERO, null, null))
        .hasMessageContaining("redelivery.initial");
  }
}
