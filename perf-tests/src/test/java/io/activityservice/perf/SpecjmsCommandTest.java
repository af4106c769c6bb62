package io.activityservice.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.perf.specjms.Audit;
import io.activityservice.perf.specjms.SpecjmsRun;
import io.activityservice.perf.specjms.Workload;
import io.activityservice.perf.specjms.Workload.Group;
import io.activityservice.perf.specjms.Workload.Topology;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The SPECjms command's own arithmetic (the runs themselves need the test bed). */
class SpecjmsCommandTest {

  @Test
  void measurementCoversFortyExecutionsOfTheRarestInteraction() {
    // Vertical BASE 10: I3 at 0.05 × 10 = 0.5/s is the rarest, 40 executions take 80 s.
    assertThat(SpecjmsCommand.measureSeconds(Workload.of(Topology.VERTICAL, 10))).isEqualTo(80);
    // Horizontal rates are fixed per location: I1 at 1.539/s per SM needs 26 s, so the floor wins.
    assertThat(SpecjmsCommand.measureSeconds(Workload.of(Topology.HORIZONTAL, 1))).isEqualTo(30);
  }

  @Test
  void onlyTheSpecjmsOptionsSelectTheWorkload() {
    assertThat(SpecjmsCommand.wanted(new String[] {"--quick"})).isFalse();
    assertThat(SpecjmsCommand.wanted(new String[] {"--specjms", "--base", "3"})).isTrue();
    assertThat(SpecjmsCommand.wanted(new String[] {"--specjms-search"})).isTrue();
    assertThat(SpecjmsCommand.wanted(new String[] {"--specjms-solo"})).isTrue();
  }

  @Test
  void groupTableGivesEachGroupsCountsP90AndProducers() {
    SpecjmsRun.Result r =
        new SpecjmsRun.Result(
            Workload.of(Topology.HORIZONTAL, 1),
            List.of(),
            0,
            0,
            Map.of(),
            null,
            null,
            List.of(
                new SpecjmsRun.GroupReport(Group.A, 619, 618.4, 619, 110.2, "HQ Kafka acks=0"),
                new SpecjmsRun.GroupReport(Group.C, 0, 12, 0, Double.NaN, "DC JMS NON_PERSISTENT")),
            0,
            0,
            Map.of(),
            30,
            Map.of());
    assertThat(SpecjmsCommand.groupTable(r))
        .contains("| a | 619 | 619 (618) | 110 | HQ Kafka acks=0 |")
        .contains("| c | 0 | 0 (12) | n/a | DC JMS NON_PERSISTENT |");
  }

  @Test
  void soloRowsSubtractEachSourcesIdleRateBeforeDividingByExecutionsAndDeliveries() {
    // 10 s measured: the service used 350 ms of CPU and, configured but not sent to, 20 ms/s: so
    // 350 − 200 = 150 ms net.
    SpecjmsRun.Result r =
        new SpecjmsRun.Result(
            Workload.of(Topology.HORIZONTAL, 1),
            List.of(new Audit.Rule("I1 sent", "15", "15 ± 5 %", true)),
            0,
            0,
            Map.of(),
            null,
            null,
            List.of(),
            15,
            90,
            Map.of("service-own", 350_000_000L, "localstack", 30_000_000L),
            10,
            Map.of("service-own", 20.0, "localstack", 0.0));
    SpecjmsCommand.SoloRow row = SpecjmsCommand.SoloRow.of(1, 1.5, r);
    assertThat(row.micros()).containsEntry("service-own", 150_000.0);
    assertThat(row.micros()).containsEntry("localstack", 30_000.0);
    assertThat(row.passed()).isTrue();
    String table = SpecjmsCommand.soloTable(List.of(row));
    // 150,000 µs / 15 executions = 10,000; / 90 deliveries = 1,667. LocalStack: 2,000 and 333.
    assertThat(table)
        .contains("service-own µs/exec | service-own µs/delivery |")
        .contains("| I1 | 1.50 | 15 | 90 | 20.0 | 10000 | 1667 | 2000 | 333 | PASS |")
        .doesNotContain("kafka");
  }
}
