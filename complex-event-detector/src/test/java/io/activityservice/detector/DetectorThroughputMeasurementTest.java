package io.activityservice.detector;

import static io.activityservice.detector.Harness.T0;

import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Measures events/s through ingest (prepare + route) + the detector tap + Esper with 0, 1, 10 and 100
 * detectors deployed on the event's type (each a grouped average over #length(3) whose having clause never
 * holds, so the measurement is the input path). No assertions on time. Run with
 * {@code ./mvnw -q -B -pl complex-event-detector test -Dtest=DetectorThroughputMeasurementTest -Dmeasure=true}.
 */
@EnabledIfSystemProperty(named = "measure", matches = "true")
class DetectorThroughputMeasurementTest {

  static final String READING = "com.example.meter.reading";

  @ParameterizedTest(name = "{0} detectors")
  @ValueSource(ints = {0, 1, 10, 100})
  void eventsPerSecond(int detectors) throws Exception {
    int events = detectors >= 100 ? 20_000 : 100_000;
    try (Harness h = new Harness("mem:" + UUID.randomUUID(), 8, events)) {
      h.registerExampleTypes();
      h.routed.clear();
      for (int i = 0; i < detectors; i++) {
        h.service.create("d" + i, Map.of("R", READING), "select data.meter as meter, avg(data.value) as avgValue "
            + "from R#length(3) group by data.meter having avg(data.value) > 1e12", "com.example.none",
            ClockMode.PROCESSING_TIME);
      }
      run(h, "warm-", 5_000, detectors);
      long start = System.nanoTime();
      run(h, "m-", events, detectors);
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf("MEASURE detectors=%d events=%d seconds=%.2f events/s=%.0f detector-evaluations/s=%.0f "
              + "dropped=%d%n", detectors, events, seconds, events / seconds, events * (double) detectors / seconds,
          h.metrics.dropped());
    }
  }

  private static void run(Harness h, String prefix, int events, int detectors) throws InterruptedException {
    long before = total(h, detectors);
    for (int i = 0; i < events; i++) {
      h.publish(prefix + i, READING, "/meters/m" + (i % 50), T0.plusMillis(i),
          "{\"meter\": \"m" + (i % 50) + "\", \"value\": " + (i % 100) + "}");
    }
    long target = before + (long) events * detectors;
    while (total(h, detectors) + h.metrics.dropped() * Math.max(1, detectors) < target) {
      Thread.sleep(2);
    }
  }

  private static long total(Harness h, int detectors) {
    long n = 0;
    for (int i = 0; i < detectors; i++) {
      n += h.engine.stats("d" + i).eventsIn();
    }
    return n;
  }
}
