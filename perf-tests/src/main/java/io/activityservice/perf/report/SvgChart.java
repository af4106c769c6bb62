package io.activityservice.perf.report;

import java.util.List;
import java.util.Locale;

/**
 * Self-contained SVG charts (no scripts, no external resources) for the HTML report: grouped bars
 * with min/max whiskers (the paper's Figures 4 and 5) and line charts with optional logarithmic
 * axes.
 */
public final class SvgChart {

  /** Colours of successive series. */
  static final String[] COLORS = {
    "#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#76b7b2", "#b07aa1", "#edc948", "#9c755f"
  };

  private static final int W = 640;
  private static final int H = 360;
  private static final int LEFT = 70;
  private static final int RIGHT = 150;
  private static final int TOP = 36;
  private static final int BOTTOM = 50;

  /**
   * One bar series: a value per category with its range.
   *
   * @param name legend text
   * @param mean bar heights
   * @param min whisker bottoms
   * @param max whisker tops
   */
  public record Bars(String name, double[] mean, double[] min, double[] max) {}

  /**
   * One line series.
   *
   * @param name legend text
   * @param x x values
   * @param y y values (same length)
   */
  public record Line(String name, double[] x, double[] y) {}

  private SvgChart() {}

  /** Grouped bars with whiskers, linear y axis from 0. */
  public static String bars(
      String title, String yLabel, List<String> categories, List<Bars> series) {
    double top = 0;
    for (Bars b : series) {
      for (int i = 0; i < b.max().length; i++) {
        top = Math.max(top, finite(b.max()[i], b.mean()[i]));
      }
    }
    top = niceCeil(top <= 0 ? 1 : top);
    StringBuilder s = open(title);
    axisY(s, 0, top, false, yLabel);
    int plotW = W - LEFT - RIGHT;
    int plotH = H - TOP - BOTTOM;
    double group = (double) plotW / Math.max(1, categories.size());
    double bar = group * 0.8 / Math.max(1, series.size());
    for (int c = 0; c < categories.size(); c++) {
      double gx = LEFT + c * group;
      text(s, gx + group / 2, H - BOTTOM + 18, categories.get(c), "middle", 12);
      for (int k = 0; k < series.size(); k++) {
        Bars b = series.get(k);
        if (c >= b.mean().length || !Double.isFinite(b.mean()[c])) {
          continue;
        }
        double x = gx + group * 0.1 + k * bar;
        double y = TOP + plotH * (1 - b.mean()[c] / top);
        s.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s: %s</title></rect>%n",
                x,
                y,
                bar * 0.9,
                TOP + plotH - y,
                COLORS[k % COLORS.length],
                esc(b.name()),
                fmt(b.mean()[c])));
        double lo = TOP + plotH * (1 - finite(b.min()[c], b.mean()[c]) / top);
        double hi = TOP + plotH * (1 - finite(b.max()[c], b.mean()[c]) / top);
        double cx = x + bar * 0.45;
        s.append(
            String.format(
                Locale.ROOT,
                "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"#222\"/>%n",
                cx,
                lo,
                hi,
                cx - 4,
                lo,
                cx + 4,
                cx - 4,
                hi,
                cx + 4));
      }
    }
    legend(s, series.stream().map(Bars::name).toList());
    return close(s);
  }

  /**
   * Lines with markers; {@code logX}/{@code logY} use decades (non-positive values are skipped).
   */
  public static String lines(
      String title, String xLabel, String yLabel, boolean logX, boolean logY, List<Line> series) {
    double x0 = Double.MAX_VALUE;
    double x1 = -Double.MAX_VALUE;
    double y0 = Double.MAX_VALUE;
    double y1 = -Double.MAX_VALUE;
    for (Line l : series) {
      for (int i = 0; i < l.x().length; i++) {
        if (usable(l.x()[i], logX) && usable(l.y()[i], logY)) {
          x0 = Math.min(x0, l.x()[i]);
          x1 = Math.max(x1, l.x()[i]);
          y0 = Math.min(y0, l.y()[i]);
          y1 = Math.max(y1, l.y()[i]);
        }
      }
    }
    if (x0 > x1) {
      x0 = 1;
      x1 = 10;
      y0 = 1;
      y1 = 10;
    }
    double[] xr = range(x0, x1, logX);
    double[] yr = range(logY ? y0 : Math.min(0, y0), y1, logY);
    StringBuilder s = open(title);
    axisY(s, yr[0], yr[1], logY, yLabel);
    axisX(s, xr[0], xr[1], logX, xLabel);
    for (int k = 0; k < series.size(); k++) {
      Line l = series.get(k);
      StringBuilder path = new StringBuilder();
      String color = COLORS[k % COLORS.length];
      for (int i = 0; i < l.x().length; i++) {
        if (!usable(l.x()[i], logX) || !usable(l.y()[i], logY)) {
          continue;
        }
        double px = px(l.x()[i], xr, logX);
        double py = py(l.y()[i], yr, logY);
        path.append(path.length() == 0 ? "M" : "L")
            .append(String.format(Locale.ROOT, "%.1f %.1f", px, py));
        s.append(
            String.format(
                Locale.ROOT,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s: %s, %s</title></circle>%n",
                px,
                py,
                color,
                esc(l.name()),
                fmt(l.x()[i]),
                fmt(l.y()[i])));
      }
      if (path.length() > 0) {
        s.append("<path d=\"")
            .append(path)
            .append("\" fill=\"none\" stroke=\"")
            .append(color)
            .append("\" stroke-width=\"2\"/>\n");
      }
    }
    legend(s, series.stream().map(Line::name).toList());
    return close(s);
  }

  private static boolean usable(double v, boolean log) {
    return Double.isFinite(v) && (!log || v > 0);
  }

  private static double[] range(double lo, double hi, boolean log) {
    if (log) {
      double a = Math.pow(10, Math.floor(Math.log10(lo)));
      double b = Math.pow(10, Math.ceil(Math.log10(hi)));
      return new double[] {a, b <= a ? a * 10 : b};
    }
    double b = niceCeil(hi <= lo ? lo + 1 : hi);
    return new double[] {lo, b};
  }

  private static double px(double x, double[] r, boolean log) {
    double f =
        log
            ? (Math.log10(x) - Math.log10(r[0])) / (Math.log10(r[1]) - Math.log10(r[0]))
            : (x - r[0]) / (r[1] - r[0]);
    return LEFT + f * (W - LEFT - RIGHT);
  }

  private static double py(double y, double[] r, boolean log) {
    double f =
        log
            ? (Math.log10(y) - Math.log10(r[0])) / (Math.log10(r[1]) - Math.log10(r[0]))
            : (y - r[0]) / (r[1] - r[0]);
    return TOP + (1 - f) * (H - TOP - BOTTOM);
  }

  private static void axisY(StringBuilder s, double lo, double hi, boolean log, String label) {
    double[] r = {lo, hi};
    for (double v : ticks(lo, hi, log)) {
      double y = py(v, r, log);
      s.append(
          String.format(
              Locale.ROOT, "<path d=\"M%d %.1fH%d\" stroke=\"#ddd\"/>%n", LEFT, y, W - RIGHT));
      text(s, LEFT - 6, y + 4, fmt(v), "end", 11);
    }
    s.append(
        String.format(
            Locale.ROOT,
            "<path d=\"M%d %dV%d H%d\" stroke=\"#333\" fill=\"none\"/>%n",
            LEFT,
            TOP,
            H - BOTTOM,
            W - RIGHT));
    s.append(
        String.format(
            Locale.ROOT,
            "<text x=\"16\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">%s</text>%n",
            (TOP + H - BOTTOM) / 2,
            (TOP + H - BOTTOM) / 2,
            esc(label)));
  }

  private static void axisX(StringBuilder s, double lo, double hi, boolean log, String label) {
    double[] r = {lo, hi};
    for (double v : ticks(lo, hi, log)) {
      double x = px(v, r, log);
      s.append(
          String.format(
              Locale.ROOT, "<path d=\"M%.1f %dV%d\" stroke=\"#eee\"/>%n", x, TOP, H - BOTTOM));
      text(s, x, H - BOTTOM + 16, fmt(v), "middle", 11);
    }
    text(s, LEFT + (W - LEFT - RIGHT) / 2.0, H - 10, label, "middle", 12);
  }

  static double[] ticks(double lo, double hi, boolean log) {
    if (log) {
      int a = (int) Math.round(Math.log10(lo));
      int b = (int) Math.round(Math.log10(hi));
      double[] t = new double[Math.max(1, b - a + 1)];
      for (int i = 0; i < t.length; i++) {
        t[i] = Math.pow(10, a + i);
      }
      return t;
    }
    double step = niceCeil((hi - lo) / 5);
    int count = (int) Math.floor((hi - lo) / step + 1e-9) + 1;
    double[] t = new double[Math.min(count, 12)];
    for (int i = 0; i < t.length; i++) {
      t[i] = lo + i * step;
    }
    return t;
  }

  /** The smallest of 1, 2, 2.5, 5 × 10^k that is ≥ {@code v} (v > 0). */
  static double niceCeil(double v) {
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * p >= v * (1 - 1e-12)) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static void legend(StringBuilder s, List<String> names) {
    for (int i = 0; i < names.size(); i++) {
      int y = TOP + 10 + i * 18;
      s.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
              W - RIGHT + 10,
              y - 10,
              COLORS[i % COLORS.length]));
      text(s, W - RIGHT + 28, y, names.get(i), "start", 11);
    }
  }

  private static StringBuilder open(String title) {
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "font-family=\"sans-serif\" role=\"img\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
            W,
            H,
            W,
            H));
    text(s, W / 2.0, 20, title, "middle", 14);
    return s;
  }

  private static String close(StringBuilder s) {
    return s.append("</svg>\n").toString();
  }

  private static void text(
      StringBuilder s, double x, double y, String text, String anchor, int size) {
    s.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\">%s</text>%n",
            x,
            y,
            size,
            anchor,
            esc(text)));
  }

  private static double finite(double v, double fallback) {
    return Double.isFinite(v) ? v : fallback;
  }

  static String fmt(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return String.format(Locale.ROOT, "%,d", (long) v);
    }
    return Math.abs(v) >= 100
        ? String.format(Locale.ROOT, "%,.0f", v)
        : String.format(Locale.ROOT, "%.3g", v);
  }

  /** Escapes XML text. */
  static String esc(String t) {
    return t.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
