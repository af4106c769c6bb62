package io.activityservice.events.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.support.JsonArbitraries;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * {@link Json#isValidValue} (the check routing makes instead of parsing data nobody reads) says yes
 * exactly when {@link Json#read} (the parse of whoever reads the data later) succeeds: an event
 * accepted without its data being parsed can always be parsed later, and one refused would have
 * been refused by the parse.
 */
class JsonValidityPropertiesTest {

  private static boolean parses(byte[] bytes) {
    try {
      Json.read(bytes, "data", "not JSON");
      return true;
    } catch (InvalidInputException e) {
      return false;
    }
  }

  private static void agree(byte[] bytes) {
    boolean parses = parses(bytes);
    assertThat(Json.isValidValue(bytes))
        .as(new String(bytes, StandardCharsets.UTF_8))
        .isEqualTo(parses);
    Statistics.label("valid").collect(parses);
  }

  private static byte[] bytes(Object value) {
    return (value == null ? "null" : Json.write(Json.tree(value))).getBytes(StandardCharsets.UTF_8);
  }

  @Property(tries = 2000)
  void agreesOnJsonValues(@ForAll("json") Object value) {
    agree(bytes(value));
  }

  @Property(tries = 10000)
  void agreesOnMutatedJson(@ForAll("json") Object value, @ForAll("edits") List<Integer> edits) {
    byte[] bytes = bytes(value);
    StringBuilder text = new StringBuilder(new String(bytes, StandardCharsets.UTF_8));
    String junk = "{}[],:\"\\ 0-.eE+tfn\u0001\u00ff";
    for (int e : edits) {
      if (text.isEmpty()) {
        break;
      }
      int at = Math.floorMod(e, text.length());
      switch (Math.floorMod(e, 3)) {
        case 0 -> text.deleteCharAt(at);
        case 1 -> text.insert(at, junk.charAt(Math.floorMod(e / 3, junk.length())));
        default -> text.setCharAt(at, junk.charAt(Math.floorMod(e / 7, junk.length())));
      }
    }
    agree(text.toString().getBytes(StandardCharsets.UTF_8));
  }

  @Property(tries = 5000)
  void agreesOnArbitraryBytes(@ForAll byte[] bytes) {
    agree(bytes);
  }

  @Property(tries = 3000)
  void agreesOnStringsWithArbitraryBytes(@ForAll byte[] inside) {
    byte[] bytes = new byte[inside.length + 2];
    bytes[0] = '"';
    System.arraycopy(inside, 0, bytes, 1, inside.length);
    bytes[bytes.length - 1] = '"';
    agree(bytes);
  }

  @Example
  void agreesOnEdgeCases() {
    for (String s :
        List.of(
            "",
            "  ",
            "1",
            "-0",
            "01",
            "1e999999999",
            "1e9999999999999",
            "[1e-2147483649]",
            "{\"a\":1} ",
            "{\"a\":1}{",
            "{\"a\":1} 2",
            "[1,]",
            "{\"a\":}",
            "\"\\ud800\"",
            "\"\\u00\"",
            "NaN",
            "tru",
            "null",
            "[[[[[]]]]]",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\uD83D\\uDE00\"",
            "\"é€😀\"",
            "{\"a\":{\"b\":[1,2,{\"c\":null}]}}",
            "\"tab\there\"",
            "'a'",
            "/* c */ 1")) {
      agree(s.getBytes(StandardCharsets.UTF_8));
    }
    agree(new byte[] {'"', (byte) 0xC3, '"'}); // truncated UTF-8 sequence in a string
    agree(new byte[] {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'}); // an encoded surrogate
    agree(
        ("[" + "[".repeat(1500) + "]".repeat(1500) + "]")
            .getBytes(StandardCharsets.UTF_8)); // nesting bound
  }

  @Provide
  Arbitrary<Object> json() {
    return JsonArbitraries.jsonValue(3);
  }

  @Provide
  Arbitrary<List<Integer>> edits() {
    return Arbitraries.integers().list().ofMinSize(1).ofMaxSize(3);
  }
}
