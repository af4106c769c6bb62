package io.activityservice.events.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.channel.Acknowledgement;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HopLatencyTest {

  static final OffsetDateTime SENT =
      OffsetDateTime.of(2026, 11, 26, 4, 0, 0, 250_000_000, ZoneOffset.ofHours(2));

  @Test
  void theWaitIsReceiptMinusSendTime() {
    assertThat(HopLatency.waitMillis(1_000, 1_750)).isEqualTo(750);
  }

  @Test
  void aProducerClockAheadOfOursCountsAsNoWaitNotANegativeOne() {
    assertThat(HopLatency.waitMillis(2_000, 1_500)).isZero();
  }

  @Test
  void epochMillisAgreesWithTheInstantInAnyOffset() {
    assertThat(HopLatency.epochMillis(SENT)).isEqualTo(SENT.toInstant().toEpochMilli());
    OffsetDateTime beforeEpoch =
        OffsetDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000, ZoneOffset.UTC);
    assertThat(HopLatency.epochMillis(beforeEpoch)).isEqualTo(-1);
  }

  @Test
  void anEventIsTimedFromItsTimeAndAFutureTimeRecordsZero() {
    Timer timer = Timer.builder("t").register(new SimpleMeterRegistry());
    long sent = SENT.toInstant().toEpochMilli();

    HopLatency.waited(timer, event(SENT), sent + 1_200);
    assertThat(timer.count()).isEqualTo(1);
    assertThat(timer.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1_200.0);

    HopLatency.waited(timer, event(SENT), sent - 5_000); // the producer's clock runs ahead
    assertThat(timer.count()).isEqualTo(2);
    assertThat(timer.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1_200.0);
  }

  @Test
  void theTransportsSendTimeWinsOverTheEventsTimeAndCountsAnEventWithoutOne() {
    Timer timer = Timer.builder("t").register(new SimpleMeterRegistry());
    long sent = SENT.toInstant().toEpochMilli();

    // The event was made 10 s before the producer sent it; the transport says when it was sent.
    HopLatency.waited(timer, event(SENT), sent + 10_000, sent + 10_250);
    assertThat(timer.count()).isEqualTo(1);
    assertThat(timer.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(250.0);

    HopLatency.waited(timer, event(null), sent, sent + 40);
    assertThat(timer.count()).isEqualTo(2);
    assertThat(timer.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(290.0);

    HopLatency.waited(timer, event(SENT), Acknowledgement.NO_SENT_TIME, sent + 1_000);
    assertThat(timer.count()).isEqualTo(3);
    assertThat(timer.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1_290.0);
  }

  @Test
  void anEventWithoutATimeIsNotCounted() {
    Timer timer = Timer.builder("t").register(new SimpleMeterRegistry());
    HopLatency.waited(timer, event(null), 1_000);
    assertThat(timer.count()).isZero();
  }

  private static io.cloudevents.CloudEvent event(OffsetDateTime time) {
    return CloudEventBuilder.v1()
        .withId("1")
        .withSource(URI.create("/t"))
        .withType("t")
        .withTime(time)
        .build();
  }
}
