package io.activityservice.channel.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.channel.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The visibility timeout a nack sets: the backoff of the receive count, in whole seconds. */
class SqsNackDelayTest {

  @Test
  void followsTheBackoffOfTheReceiveCountRoundedUpToSeconds() {
    Backoff exact = new Backoff(Duration.ofMillis(1500), Duration.ofSeconds(60), false);
    assertThat(InboundSettlements.nackDelaySeconds(exact, 1)).isEqualTo(2); // 1.5 s
    assertThat(InboundSettlements.nackDelaySeconds(exact, 2)).isEqualTo(3);
    assertThat(InboundSettlements.nackDelaySeconds(exact, 3)).isEqualTo(6);
    assertThat(InboundSettlements.nackDelaySeconds(exact, 30)).isEqualTo(60);
    assertThat(InboundSettlements.nackDelaySeconds(exact, 0))
        .as("missing receive count: first")
        .isEqualTo(2);
  }

  @Test
  void neverExceedsTheSqsMaximum() {
    Backoff long12h = new Backoff(Duration.ofHours(12), Duration.ofHours(12), false);
    assertThat(InboundSettlements.nackDelaySeconds(long12h, 5)).isEqualTo(43_200);
  }

  @Test
  void withJitterStaysBetweenZeroAndTheCeiling() {
    Backoff jittered = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));
    for (int i = 0; i < 200; i++) {
      assertThat(InboundSettlements.nackDelaySeconds(jittered, 4)).isBetween(0, 8);
    }
  }
}
