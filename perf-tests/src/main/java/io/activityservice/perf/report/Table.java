package io.activityservice.perf.report;

import java.util.ArrayList;
import java.util.List;

/** A table rendered identically to Markdown (report.md) and HTML (index.html). */
public final class Table {

  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  /** A table with these column headers. */
  public Table(String... headers) {
    this.headers = List.of(headers);
  }

  /** Adds a row (missing cells are left blank, extra cells are an error). */
  public Table row(Object... cells) {
    if (cells.length > headers.size()) {
      throw new IllegalArgumentException(
          "row has " + cells.length + " cells, table has " + headers.size() + " columns");
    }
    List<String> r = new ArrayList<>();
    for (int i = 0; i < headers.size(); i++) {
      r.add(i < cells.length && cells[i] != null ? cells[i].toString() : "");
    }
    rows.add(r);
    return this;
  }

  /** Number of rows. */
  public int size() {
    return rows.size();
  }

  /** GitHub-flavoured Markdown. */
  public String markdown() {
    StringBuilder s = new StringBuilder();
    s.append("| ")
        .append(String.join(" | ", headers.stream().map(Table::md).toList()))
        .append(" |\n|");
    headers.forEach(h -> s.append("---|"));
    s.append('\n');
    for (List<String> r : rows) {
      s.append("| ").append(String.join(" | ", r.stream().map(Table::md).toList())).append(" |\n");
    }
    return s.toString();
  }

  /** An HTML table. */
  public String html() {
    StringBuilder s = new StringBuilder("<table>\n<tr>");
    headers.forEach(h -> s.append("<th>").append(SvgChart.esc(h)).append("</th>"));
    s.append("</tr>\n");
    for (List<String> r : rows) {
      s.append("<tr>");
      for (String c : r) {
        String cls =
            c.equals("met") || c.equals("holds")
                ? " class=\"ok\""
                : c.equals("missed") || c.equals("does not hold") ? " class=\"bad\"" : "";
        s.append("<td").append(cls).append(">").append(SvgChart.esc(c)).append("</td>");
      }
      s.append("</tr>\n");
    }
    return s.append("</table>\n").toString();
  }

  private static String md(String cell) {
    return cell.replace("|", "\\|").replace("\n", " ");
  }
}
