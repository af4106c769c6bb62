package io.activityservice.app.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host's busy and total ticks from /proc/stat and a process's nice value (pure parsing). */
class ProcessCpuTest {

  @Test
  void nicedProcessesAreLeftOutOfBusyUnlessAsked() {
    // user nice system idle iowait irq softirq steal guest guest_nice
    String line = "cpu  100 400 50 300 20 5 10 15 0 0";
    assertThat(ProcessCpu.ticks(line, false)).containsExactly(100 + 50 + 5 + 10 + 15, 900);
    assertThat(ProcessCpu.ticks(line, true)).containsExactly(100 + 400 + 50 + 5 + 10 + 15, 900);
  }

  @Test
  void nicenessIsField19AfterACommandWithSpaces(@TempDir Path dir) throws Exception {
    Path stat = dir.resolve("stat");
    Files.writeString(
        stat, "42 (java (x) y) S 1 42 42 0 -1 4194560 10 0 0 0 5 3 0 0 39 19 30 0 100\n");
    assertThat(ProcessCpu.niceness(stat)).isEqualTo(19);
    assertThat(ProcessCpu.niceness(dir.resolve("missing"))).isZero();
  }

  @Test
  void thePlatformsHostLoadIsAShareOrNotMeasurable() {
    ProcessCpu cpu = ProcessCpu.platform();
    for (int i = 0; i < 2; i++) {
      double load = cpu.hostLoad();
      assertThat(Double.isNaN(load) || (load >= 0 && load <= 1)).as("load %s", load).isTrue();
    }
  }
}
