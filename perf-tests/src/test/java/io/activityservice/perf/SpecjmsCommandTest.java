package io.activityservice.perf;

import static org.assertj.core.api.Assertions.assertThat;

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
            30);
    assertThat(SpecjmsCommand.groupTable(r))
        .contains("| a | 619 | 619 (618) | 110 | HQ Kafka acks=0 |")
        .contains("| c | 0 | 0 (12) | n/a | DC JMS NON_PERSISTENT |");
  }
}
