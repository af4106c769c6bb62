package io.activityservice.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.perf.specjms.Workload;
import io.activityservice.perf.specjms.Workload.Topology;
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
}
