package io.activityservice.perf.suite;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A progress bar on stderr, counted in events. On a terminal it redraws one line; without one (CI
 * logs) it prints a line when the step changes or every 10 %, so the log stays short.
 */
public final class Progress {

  private static final int WIDTH = 30;

  private final PrintStream out;
  private final boolean tty;
  private final long startNanos = System.nanoTime();
  private long total;
  private long done;
  private String step = "";
  private int lastPrintedDecile = -1;

  /** A bar for {@code total} units of work. */
  public Progress(PrintStream out, boolean tty, long total) {
    this.out = out;
    this.tty = tty;
    this.total = Math.max(1, total);
  }

  /** A bar on stderr, redrawing in place if there is a console. */
  public static Progress onStderr(long total) {
    return new Progress(System.err, System.console() != null, total);
  }

  /** Adds {@code units} of work to the total (when a search goes further than planned). */
  public synchronized void extend(long units) {
    total += units;
  }

  /** Names the current step. */
  public synchronized void step(String name) {
    step = name;
    print(true);
  }

  /** Marks {@code units} as done. */
  public synchronized void advance(long units) {
    done = Math.min(total, done + units);
    print(false);
  }

  /** Ends the bar (newline on a terminal). */
  public synchronized void finish() {
    done = total;
    print(true);
    if (tty) {
      out.println();
    }
  }

  /** The bar as text, e.g. {@code [#####.....] 50% 0:42 T2 N=500 rep 3/10}. */
  synchronized String line() {
    double f = (double) done / total;
    int filled = (int) Math.round(f * WIDTH);
    long s = (System.nanoTime() - startNanos) / 1_000_000_000L;
    return String.format(
        Locale.ROOT,
        "[%s%s] %3d%% %d:%02d %s",
        "#".repeat(filled),
        ".".repeat(WIDTH - filled),
        Math.round(f * 100),
        s / 60,
        s % 60,
        step);
  }

  private void print(boolean stepChanged) {
    int decile = (int) (10 * done / total);
    if (tty) {
      String l = line();
      out.print("\r" + l + " ".repeat(Math.max(0, 100 - l.length())));
      out.flush();
    } else if (stepChanged || decile != lastPrintedDecile) {
      out.println(line());
    }
    lastPrintedDecile = decile;
  }
}
