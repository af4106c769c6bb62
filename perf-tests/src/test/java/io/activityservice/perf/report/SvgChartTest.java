package io.activityservice.perf.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class SvgChartTest {

  @Test
  void barsAreWellFormedSvgWithOneRectPerBarAndEscapedText() throws Exception {
    String svg =
        SvgChart.bars(
            "A <b> & c",
            "ms",
            List.of("N=100", "N=500"),
            List.of(
                new SvgChart.Bars(
                    "T1", new double[] {10, 20}, new double[] {8, 15}, new double[] {12, 30}),
                new SvgChart.Bars(
                    "T2",
                    new double[] {15, Double.NaN},
                    new double[] {14, Double.NaN},
                    new double[] {16, Double.NaN})));
    Document doc = parse(svg);
    // background + 3 bars + 2 legend swatches
    assertEquals(6, doc.getElementsByTagName("rect").getLength());
    assertTrue(svg.contains("A &lt;b&gt; &amp; c"));
    assertFalse(svg.contains("<script"));
    assertFalse(
        svg.contains("http://")
            && svg.replace("http://www.w3.org/2000/svg", "").contains("http://"));
  }

  @Test
  void logLinesSkipNonPositiveValues() throws Exception {
    String svg =
        SvgChart.lines(
            "p99",
            "rate",
            "ms",
            true,
            true,
            List.of(new SvgChart.Line("T1", new double[] {100, 1000, 0}, new double[] {1, 2, 3})));
    Document doc = parse(svg);
    assertEquals(2, doc.getElementsByTagName("circle").getLength());
  }

  @Test
  void niceNumbersAndTicks() {
    assertEquals(5, SvgChart.niceCeil(4.2), 1e-12);
    assertEquals(250, SvgChart.niceCeil(201), 1e-12);
    assertEquals(1000, SvgChart.niceCeil(1000), 1e-9);
    assertArrayEquals(new double[] {1, 10, 100}, SvgChart.ticks(1, 100, true), 1e-9);
    assertArrayEquals(new double[] {0, 20, 40, 60, 80, 100}, SvgChart.ticks(0, 100, false), 1e-9);
  }

  private static Document parse(String svg) throws Exception {
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
  }
}
