package io.activityservice.perf.cpu;

import java.util.List;
import java.util.Locale;

/**
 * The steady-state rule of the CPU figures (perf-tests/README.md, "Steady state"): a burst's CPU
 * counts only when the JIT compiler threads of the measured process used less than a share (2 %) of
 * its own CPU in the burst's window; a figure needs a number of such bursts (3) of one size; the
 * suite repeats bursts up to a bound (8) and a figure without enough steady bursts is reported as
 * not steady.
 */
public final class SteadyState {

  private SteadyState() {}

  /**
   * The bursts of one scenario at one size, and which of them count.
   *
   * @param scenario scenario id
   * @param process the process whose JIT share decides ({@code service}, {@code camel}, {@code
   *     activemq}), or null when there is none to tell apart (every burst counts)
   * @param n burst size
   * @param all every burst of that size, in order
   * @param accepted those whose JIT share was below the bound
   * @param needed steady bursts needed
   * @param maxJitShare the bound
   */
  public record Selection(
      String scenario,
      String process,
      int n,
      List<CpuUse> all,
      List<CpuUse> accepted,
      int needed,
      double maxJitShare) {

    /** Whether enough bursts were steady. */
    public boolean steady() {
      return accepted.size() >= needed;
    }

    /**
     * The bursts a figure is computed from: the steady ones, or every burst when none was steady
     * (then the figure is marked not steady).
     */
    public List<CpuUse> used() {
      return accepted.isEmpty() ? all : accepted;
    }

    /** The largest JIT share among the bursts used. */
    public double jitShareOfUsed() {
      return used().stream().mapToDouble(u -> u.jitShare(process)).max().orElse(0);
    }

    /** E.g. "steady: 3 of 3 bursts with JIT < 2 % (4 tried)" or "not steady: 1 of 3 …". */
    public String verdict() {
      if (all.isEmpty()) {
        return "no bursts of " + n;
      }
      return String.format(
          Locale.ROOT,
          "%s: %d of %d bursts of %,d with JIT < %.0f %% of %s's own CPU (%d tried%s)",
          steady() ? "steady" : "not steady",
          Math.min(accepted.size(), needed),
          needed,
          n,
          maxJitShare * 100,
          process == null ? "the process" : process,
          all.size(),
          accepted.isEmpty()
              ? "; figure from all of them, max JIT share " + pct(jitShareOfUsed())
              : "");
    }

    private static String pct(double share) {
      return Double.isFinite(share) ? String.format(Locale.ROOT, "%.1f %%", share * 100) : "∞";
    }
  }

  /**
   * Whether a burst counts: the process's JIT threads used less than {@code maxJitShare} of its own
   * CPU.
   */
  public static boolean counts(CpuUse use, String process, double maxJitShare) {
    return use.jitShare(process) < maxJitShare;
  }

  /**
   * The bursts ({@code mode} burst) of {@code scenario} at size {@code n} and which of them count.
   */
  public static Selection select(
      List<CpuUse> uses, String scenario, int n, String process, int needed, double maxJitShare) {
    List<CpuUse> all =
        uses.stream()
            .filter(u -> u.scenario().equals(scenario) && u.mode().equals("burst") && u.n() == n)
            .toList();
    List<CpuUse> ok = all.stream().filter(u -> counts(u, process, maxJitShare)).toList();
    return new Selection(scenario, process, n, all, ok, needed, maxJitShare);
  }

  /**
   * Whether the suite should run another burst: not steady yet and fewer than {@code maxBursts}
   * bursts so far.
   */
  public static boolean another(Selection s, int maxBursts) {
    return !s.steady() && s.all().size() < maxBursts;
  }
}
