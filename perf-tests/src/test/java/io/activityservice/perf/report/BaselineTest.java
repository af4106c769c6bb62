package io.activityservice.perf.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class BaselineTest {

  @Test
  void readsColumnsByTheirHeaderNames() {
    List<Baseline.Row> rows =
        Baseline.parse(
            List.of(
                "mode,scenario,extra,n,rep,offered_rate,seconds,p50_ms,p99_ms",
                "burst,T2,x,500,1,0,0.200000,1.500,4.000",
                "rate,R1,x,1000,2,1000,1.100000,NaN,9.000",
                ""));
    assertEquals(2, rows.size());
    assertEquals(new Baseline.Row("T2", "burst", 500, 0, 200.0, 1.5, 4.0), rows.get(0));
    assertTrue(Double.isNaN(rows.get(1).p50()));
    assertThrows(
        IllegalArgumentException.class,
        () -> Baseline.parse(List.of("scenario,mode,n", "T1,burst,100")),
        "a file without the needed columns is refused");
  }

  @Test
  void comparesMediansOfPercentilesAndMeanBurstTimesPerScenarioModeAndSize() {
    List<Baseline.Row> before =
        List.of(
            new Baseline.Row("T2", "burst", 500, 0, 200, 1.0, 4.0),
            new Baseline.Row("T2", "burst", 500, 0, 400, 3.0, 8.0),
            new Baseline.Row("T2", "burst", 500, 0, 300, 2.0, 100.0),
            new Baseline.Row("T1", "burst", 100, 0, 50, 1.0, 2.0),
            new Baseline.Row("R1", "rate", 1000, 1000, 1100, 2.0, 9.0));
    List<Baseline.Row> after =
        List.of(
            new Baseline.Row("R1", "rate", 1000, 1000, 1100, 3.0, 10.0),
            new Baseline.Row("R1", "rate", 1000, 1000, 1100, 5.0, 30.0),
            new Baseline.Row("T2", "burst", 500, 0, 150, 1.0, 3.0),
            new Baseline.Row("T2", "burst", 100, 0, 40, 1.0, 3.0));
    List<Baseline.Comparison> c = Baseline.compare(before, after);
    assertEquals(
        List.of("R1 1,000 ev/s", "T2 N=500", "T2 N=100", "T1 N=100"),
        c.stream().map(x -> x.scenario() + " " + x.size()).toList(),
        "this run's order, then the baseline's own rows");
    Baseline.Comparison r1 = c.get(0);
    assertEquals(1, r1.runsBefore());
    assertEquals(2, r1.runsAfter());
    assertEquals(2.0, r1.p50Before());
    assertEquals(4.0, r1.p50After(), 1e-9);
    assertEquals(20.0, r1.p99After(), 1e-9);
    assertTrue(Double.isNaN(r1.msBefore()), "paced runs have no burst time");
    Baseline.Comparison t2 = c.get(1);
    assertEquals(2.0, t2.p50Before(), 1e-9);
    assertEquals(8.0, t2.p99Before(), 1e-9, "median, so one spike does not move it");
    assertEquals(300.0, t2.msBefore(), 1e-9);
    assertEquals(150.0, t2.msAfter(), 1e-9);
    assertEquals(0.5, t2.timeRatio(), 1e-9);
    Baseline.Comparison t2small = c.get(2);
    assertEquals(0, t2small.runsBefore());
    assertTrue(Double.isNaN(t2small.p50Before()));
    assertTrue(Double.isNaN(t2small.timeRatio()));
    assertEquals(0, c.get(3).runsAfter());
  }
}
