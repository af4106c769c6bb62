package io.activityservice.detector;

import static io.activityservice.detector.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.activityservice.detector.esper.EsperDetectorEngine;
import io.activityservice.detector.esper.internal.LimitConditionLog;
import io.activityservice.events.problem.InvalidInputException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The detector limits of {@link EsperDetectorEngine.Settings}, set small, on the real detector
 * path.
 */
class DetectorLimitsTest {

  static final String READING = "com.example.meter.reading";

  Harness h;
  final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  final Logger limitLog = (Logger) LoggerFactory.getLogger(LimitConditionLog.class);

  @BeforeEach
  void start() throws Exception {
    h =
        new Harness(
            "mem:" + UUID.randomUUID(),
            8,
            new EsperDetectorEngine.Settings(
                1, 1000, Duration.ofMillis(50), 10, Duration.ofMinutes(5), 2, 2));
    h.registerExampleTypes();
    logged.start();
    limitLog.addAppender(logged);
  }

  @AfterEach
  void stop() {
    limitLog.detachAppender(logged);
    h.close();
  }

  @Test
  void windowSizesAreBoundedByTheSettings() {
    h.service.create(
        "ten", Map.of("R", READING), "select count(*) as c from R#length(10)", "x.ten", null);
    h.service.create(
        "five-minutes",
        Map.of("R", READING),
        "select count(*) as c from R#time(5 min)",
        "x.five",
        null);
    assertThatThrownBy(
            () ->
                h.service.create(
                    "eleven",
                    Map.of("R", READING),
                    "select count(*) as c from R#length_batch(11)",
                    "x.eleven",
                    null))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.errors().get(0).reason())
                    .isEqualTo(
                        "line 1, column 29: #length_batch window size 11 is above the limit of 10 events"));
    assertThatThrownBy(
            () ->
                h.service.create(
                    "six-minutes",
                    Map.of("R", READING),
                    "select count(*) as c from R#time_batch(6 min)",
                    "x.six",
                    null))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.errors().get(0).reason())
                    .contains("#time_batch window size 6 minutes is above the limit of PT5M"));
    assertThat(h.service.list())
        .extracting(s -> s.definition().name())
        .containsExactlyInAnyOrder("ten", "five-minutes");
  }

  @Test
  void patternBranchesBeyondTheLimitAreNotStartedAndAWarningIsLogged() {
    h.service.create(
        "pairs",
        Map.of("R", READING),
        "select a.id as opened, b.id as closed from pattern "
            + "[every a=R(data.meter = 'a') -> b=R(data.meter = 'b')]",
        "com.example.pairs",
        ClockMode.EVENT_TIME);
    for (int i = 1; i <= 3; i++) {
      h.publish(
          "a" + i, READING, "/m", T0.plusSeconds(i), "{\"meter\": \"a\", \"value\": " + i + "}");
    }
    h.publish("b1", READING, "/m", T0.plusSeconds(4), "{\"meter\": \"b\", \"value\": 4}");
    await().atMost(Duration.ofSeconds(10)).until(() -> h.engine.stats("pairs").eventsIn() == 4);
    // a1 and a2 each started a branch waiting for b; a3 found the limit of 2 reached
    await().atMost(Duration.ofSeconds(10)).until(() -> h.routedOf("com.example.pairs").size() == 2);
    assertThat(h.routedOf("com.example.pairs"))
        .extracting(Harness::data)
        .containsExactly(
            "{\"opened\":\"a1\",\"closed\":\"b1\"}", "{\"opened\":\"a2\",\"closed\":\"b1\"}");
    List<String> warnings = logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(warnings)
        .singleElement()
        .asString()
        .contains("detector-pairs-")
        .contains("its limit of 2 pattern sub-expressions");
  }
}
