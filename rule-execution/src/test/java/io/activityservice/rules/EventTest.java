package io.activityservice.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EventTest {

  final Event e = TestEvents.event("e1", "t", 1_000L, """
      {"value": 95, "text": "42.5", "meter": {"id": "m1", "tags": ["a", "b"]}, "none": null, "flag": true}""");

  @Test
  void numberReadsNumbersAndNumericStringsElseNaN() {
    assertThat(e.number("value")).isEqualTo(95.0);
    assertThat(e.number("text")).isEqualTo(42.5);
    assertThat(e.number("meter.id")).isNaN();
    assertThat(e.number("missing.path")).isNaN();
    assertThat(e.number("")).isNaN();
  }

  @Test
  void textReadsDottedPathsAndArrayIndexes() {
    assertThat(e.text("meter.id")).isEqualTo("m1");
    assertThat(e.text("meter.tags.1")).isEqualTo("b");
    assertThat(e.text("meter.tags.2")).isNull();
    assertThat(e.text("meter.tags")).isEqualTo("[\"a\",\"b\"]");
    assertThat(e.text("value")).isEqualTo("95");
    assertThat(e.text("none")).isNull();
    assertThat(e.text("flag")).isEqualTo("true");
  }

  @Test
  void hasIsFalseForMissingAndNull() {
    assertThat(e.has("meter.tags.0")).isTrue();
    assertThat(e.has("none")).isFalse();
    assertThat(e.has("nope")).isFalse();
    assertThat(e.has("value.deeper")).isFalse();
  }

  @Test
  void attributesAndDataMap() {
    assertThat(e.getId()).isEqualTo("e1");
    assertThat(e.getType()).isEqualTo("t");
    assertThat(e.getSource()).isEqualTo("/test");
    assertThat(e.getTime()).isEqualTo(1_000L);
    assertThat(e.getData()).containsEntry("value", 95).containsKey("meter");
    assertThat(e.hopCount()).isZero();
  }
}
