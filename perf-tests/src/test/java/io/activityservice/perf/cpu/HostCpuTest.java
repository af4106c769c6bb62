package io.activityservice.perf.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host's busy ticks from a /proc/stat cpu line and a process's nice value. */
class HostCpuTest {

  @Test
  void busyTicksLeaveOutIdleIowaitAndNiceUnlessAsked() {
    // user nice system idle iowait irq softirq steal guest guest_nice
    String line = "cpu  3280245 2409012 708919 3235751 9943 5 61025 1006 0 0";
    long busy = 3280245 + 708919 + 5 + 61025 + 1006;
    assertThat(CpuSource.busyTicks(line, false)).isEqualTo(busy);
    assertThat(CpuSource.busyTicks(line, true)).isEqualTo(busy + 2409012);
  }

  @Test
  void diskBusyTimeSumsWholeDisksOnly() {
    List<String> stats =
        List.of(
            "   7       0 loop0 10 0 0 0 0 0 0 0 0 50 60",
            " 252       0 vda 1850696 0 0 0 0 0 0 0 0 1000 2000",
            " 252       1 vda1 1850000 0 0 0 0 0 0 0 0 990 1990",
            " 259       0 nvme0n1 5 0 0 0 0 0 0 0 0 300 400",
            " 259       1 nvme0n1p1 5 0 0 0 0 0 0 0 0 290 390",
            " 253       0 dm-0 5 0 0 0 0 0 0 0 0 700 800");
    assertThat(CpuSource.diskBusyMillis(stats)).isEqualTo(1300);
  }

  @Test
  void nicenessIsField19AfterACommandWithSpaces(@TempDir Path dir) throws Exception {
    Path stat = dir.resolve("stat");
    Files.writeString(
        stat, "8082 (a (b) c) R 8030 8030 5553 0 -1 4194304 123 0 0 0 0 0 0 0 39 19 1 0 4877486\n");
    assertThat(CpuSource.niceness(stat)).isEqualTo(19);
    assertThat(CpuSource.niceness(dir.resolve("missing"))).isZero();
  }
}
