package io.activityservice.perf.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The operational-analysis table on a small made-up cpu.csv and report.md. */
class CapacityModelTableTest {

  private static final List<String> CPU =
      List.of(
          "scenario,mode,n,rep,events,window_s,source,cpu_ms,idle_readings",
          // T2: 2 bursts of 10,000 in 1 s each; service 200 ms + broker 800 ms per burst: 100 µs/ev
          "T2,burst,10000,1,10000,1.0,service,200,true",
          "T2,burst,10000,1,10000,1.0,activemq,800,true",
          "T2,burst,10000,1,10000,1.0,camel,999,true",
          "T2,burst,10000,2,10000,1.0,service,200,true",
          "T2,burst,10000,2,10000,1.0,activemq,800,true",
          "T2,burst,100,1,100,0.1,service,50,true",
          "CT2,burst,10000,1,10000,1.0,activemq,800,true",
          // T4: LocalStack 500 µs/ev on its one thread bounds it at 2,000 ev/s
          "T4,burst,10000,1,10000,6.0,service,1000,true",
          "T4,burst,10000,1,10000,6.0,localstack,5000,true");

  private static final List<String> REPORT =
      List.of(
          "## Rates",
          "| scenario | highest sustained rate ev/s (≥ 2 of 3 runs) |",
          "|---|---|",
          "| T2 | 1,000 |",
          "| T4 | 1,500 |",
          "",
          "| other | table |");

  @Test
  void demandsBoundsAndErrorPerPath() {
    Map<String, Double> sustained = CapacityModelTable.sustained(REPORT);
    assertThat(sustained).containsExactly(Map.entry("T2", 1000.0), Map.entry("T4", 1500.0));
    List<CapacityModelTable.Row> rows = CapacityModelTable.rows(CPU, sustained, 2, 10_000);
    assertThat(rows).extracting(CapacityModelTable.Row::scenario).containsExactly("T2", "T4");

    CapacityModelTable.Row t2 = rows.get(0);
    assertThat(t2.demandMicros().get("service")).isCloseTo(20.0, within(1e-9));
    assertThat(t2.demandMicros().get("activemq")).isCloseTo(80.0, within(1e-9));
    assertThat(t2.cpuBound()).isCloseTo(20_000, within(1e-6)); // 2 cores / 100 µs
    assertThat(t2.singleThreadBound()).isInfinite();
    assertThat(t2.burst()).isCloseTo(10_000, within(1e-9));
    assertThat(t2.error()).isCloseTo(1.0, within(1e-9));

    CapacityModelTable.Row t4 = rows.get(1);
    assertThat(t4.cpuBound()).isCloseTo(2e6 / 600, within(1e-6));
    assertThat(t4.predicted()).isCloseTo(2000, within(1e-6)); // the single thread's bound
    assertThat(t4.burst()).isCloseTo(10_000 / 6.0, within(1e-9));
    assertThat(t4.error()).isCloseTo(0.2, within(1e-9));

    String table = CapacityModelTable.markdown(rows, 2);
    assertThat(table)
        .contains(
            "| T2 | 20.0 | 80.0 | 0.0 | 0.0 | 20,000 | – | 20,000 | 10,000 | +100 % | 1,000 |")
        .contains("LocalStack");
  }
}
