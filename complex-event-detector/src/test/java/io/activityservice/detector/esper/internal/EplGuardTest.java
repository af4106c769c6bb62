package io.activityservice.detector.esper.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The structural check alone (pure logic: no compiler run, no runtime). */
class EplGuardTest {

  static final Set<String> PROPERTIES =
      Set.of("id", "source", "type", "subject", "time", "hopcount", "extensions", "data");

  final EplGuard guard = new EplGuard(1000, Duration.ofHours(1));

  private String refusal(String epl) {
    try {
      guard.check(epl, Set.of("R", "A", "B"), PROPERTIES);
    } catch (InvalidInputException e) {
      assertThat(e.errors()).singleElement().satisfies(f -> assertThat(f.field()).isEqualTo("epl"));
      return e.errors().get(0).reason();
    }
    throw new AssertionError("not refused: " + epl);
  }

  @Test
  void everyExampleAndEveryBuiltInUsedByTheTestsPasses() throws Exception {
    List<String> epls = new ArrayList<>();
    try (var files = Files.newDirectoryStream(Path.of("examples"), "*.json")) {
      for (Path f : files) {
        var node = Json.MAPPER.readTree(f.toFile());
        if (node.has("epl")) {
          Set<String> aliases = new java.util.HashSet<>();
          for (Iterator<String> it = node.get("inputs").fieldNames(); it.hasNext(); ) {
            aliases.add(it.next());
          }
          assertThatCode(() -> guard.check(node.get("epl").asText(), aliases, PROPERTIES))
              .as(f.toString())
              .doesNotThrowAnyException();
          epls.add(f.toString());
        }
      }
    }
    assertThat(epls).hasSizeGreaterThanOrEqualTo(5);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "select Math.abs(data.value) as a, java.lang.Math.max(1, 2) as b, Math.round(data.value) as c from R",
        "select data.meter.toUpperCase() as u, data.meter.substring(1).trim().length() as l from R",
        "select data('meter').toLowerCase() as m, extensions('tenant') as t, data.x?.y? as d from R",
        "select window(*).where(r => r.data.value > 1).countOf() as n, window(id).firstOf() as f from R#length(10)",
        "select time.getHourOfDay() as h, time.withTime(0, 0, 0, 0) as midnight, current_timestamp() as now from R",
        "select prev(1, id) as p, prior(2, id) as q, count(*) as c, avg(data.value) as a from R#length_batch(100)",
        "select new { v = data.value, m = data.meter } as map, cast(data.value, int) as i, "
            + "instanceof(data.value, double) as d, typeof(data) as t, coalesce(data.x?, 1) as c from R",
        "select * from R#groupwin(data.meter)#length(3)#unique(id)",
        "select * from R#time_length_batch(1 hour, 1000)#firstevent",
        "select * from R#sort(100, data.value desc)",
        "select * from R#ext_timed(time, 30 min)",
        "select a.id, b.id from pattern [every a=A -[100]> b=B(data.door = a.data.door) where timer:within(10 sec)]",
        "select * from pattern [every timer:interval(1 min) and not A]",
        "select * from R match_recognize (partition by data.meter measures A.id as a, B.id as b pattern (A B) "
            + "define A as A.data.value > 1, B as B.data.value > A.data.value)",
        "select (select count(*) from R#length(5) as s where s.id = r.id) as c from R as r",
        "select data.meter, sum(data.value) from R#time(1 hour) group by rollup(data.meter) having sum(data.value) > 1"
            + " output last every 10 events order by data.meter limit 5",
        "// a comment\nselect id /* another */ from R\n",
        "select rate(10) as r, nth(id, 1) as n, sorted(data.value) as s, maxby(data.value) as m from R#length(20)"
      })
  void allowedStatementsPass(String epl) {
    assertThatCode(() -> guard.check(epl, Set.of("R", "A", "B"), PROPERTIES))
        .doesNotThrowAnyException();
  }

  @Test
  void refusalsNameTheConstructWithLineAndColumn() {
    assertThat(refusal("select id,\n  java.lang.Runtime.getRuntime().exec('x') from R"))
        .isEqualTo(
            "line 2, column 3: static method call java.lang.Runtime.getRuntime() is not allowed; allowed classes: "
                + "Math, java.lang.Math");
    assertThat(refusal("select Math.random() as r, data.meter.getClass() as c from R"))
        .isEqualTo(
            "line 1, column 39: method call getClass() is not allowed: only read-only String, number and "
                + "Map methods and Esper's enumeration and date-time methods may be called on values (see the README)");
    assertThat(refusal("select 'Math.abs(1)' as s, id.\\u0067etClass() from R"))
        .startsWith("line 1, column 31: unicode escape \\u0067");
  }

  @Test
  void staticCallsOnlyOnMathAndOnlyItsMethods() {
    assertThat(refusal("select System.getenv() from R"))
        .contains("static method call System.getenv()");
    assertThat(refusal("select Math.evil() from R"))
        .contains("static method call Math.evil() is not allowed");
    assertThat(refusal("select evil.Thing.run() from R"))
        .contains("static method call evil.Thing.run()");
    assertThat(refusal("select helper.run() from R"))
        .contains("'helper' is no input, stream, tag or property name");
  }

  @Test
  void streamsMustBeInputsAndOnlyBoundedViewsAreAllowed() {
    assertThat(refusal("select * from Other"))
        .contains("stream 'Other' is not an input of this detector");
    assertThat(refusal("select * from R#length(1001)"))
        .contains("#length window size 1001 is above the limit " + "of 1000 events");
    assertThat(refusal("select * from R#length_batch(data.value)"))
        .contains("window size must be a number");
    assertThat(refusal("select * from R#time(61 min)")).contains("above the limit of PT1H");
    assertThat(refusal("select * from R#time(3601)")).contains("above the limit of PT1H");
    assertThat(refusal("select * from R#expr(true)")).contains("data window #expr is not allowed");
    assertThat(refusal("select * from R#time_accum(1 sec)"))
        .contains("data window #time_accum is not allowed");
    assertThat(refusal("select * from R#rank(data.meter, 10, data.value)"))
        .contains("data window #rank");
    assertThat(refusal("select * from R output every 1001 events"))
        .contains("output every 1001 events");
    assertThat(refusal("select * from R output every 2 hours")).contains("output rate");
    assertThat(refusal("select * from pattern [every a=A -> [1001] B]")).contains("pattern repeat");
    assertThat(refusal("select (select * from R#keepall) from R")).contains("#keepall");
    assertThat(refusal("select * from R#groupwin(id)#firstunique(data.meter)"))
        .contains("#groupwin needs a count or time window beside it");
    assertThat(refusal("select * from pattern [every-distinct(a.id) a=A]"))
        .contains("every-distinct needs an expiry time");
    assertThat(refusal("select * from pattern [every-distinct(a.id, 2 hours) a=A]"))
        .contains("every-distinct expiry 2 hours is above the limit of PT1H");
  }

  @Test
  void aggregationsThatKeepEveryValueNeedBoundedStreams() {
    assertThat(refusal("select avedev(data.value) from R"))
        .contains("line 1, column 8: avedev(data.value) keeps " + "every value it aggregates");
    assertThat(refusal("select count(distinct id) from R"))
        .contains("count(distinct id) keeps every value");
    assertThat(
            refusal(
                "select a.id from pattern [every a=A] group by a.id having sorted(a.id) is not null"))
        .contains("sorted(a.id) keeps every value");
    assertThat(
            refusal(
                "select count(*) from R#length(5) where (select median(data.value) from R) > 1"))
        .contains("median(data.value) keeps every value");
    assertThatCode(
            () ->
                guard.check(
                    "select count(distinct id), median(data.value) from R#time(1 hour), "
                        + "B#lastevent",
                    Set.of("R", "B"),
                    PROPERTIES))
        .doesNotThrowAnyException();
  }

  @Test
  void statementKindsOtherThanSelectAreRefused() {
    assertThat(refusal("create variable int v = 1")).contains("create variable is not allowed");
    assertThat(refusal("create schema S (a string)")).contains("create schema is not allowed");
    assertThat(refusal("create table T (a string primary key)"))
        .contains("create table is not allowed");
    assertThat(refusal("create context C partition by id from R"))
        .contains("create context is not allowed");
    assertThat(refusal("update istream R set id = 'x'")).contains("update istream is not allowed");
    assertThat(refusal("@Name('x') select * from R")).contains("annotation @Name is not allowed");
    assertThat(refusal("select * from R; select * from R; select * from R"))
        .isEqualTo("line 1: a detector is exactly one EPL statement, found 3");
    assertThat(refusal("")).contains("exactly one EPL statement, found 0");
  }

  @Test
  void deeplyNestedEplIsA400NotAStackOverflow() throws Exception {
    String deep = "select " + "(".repeat(20_000) + "1" + ")".repeat(20_000) + " from R";
    String[] reason = new String[1];
    // a small stack, as a request thread might have, so that the parser overflows for sure
    Thread t = new Thread(null, () -> reason[0] = refusal(deep), "small-stack", 256 * 1024);
    t.start();
    t.join();
    assertThat(reason[0]).isEqualTo("the EPL is nested too deeply");
  }

  @Test
  void syntaxErrorsReportEspersMessage() {
    assertThat(refusal("select data.meter as meter, avg(data.value) frm R"))
        .contains("Incorrect syntax near 'R'")
        .contains("line 1 column 48");
  }

  @Test
  void propertySegmentsAreSplitOutsideKeysAndBackticks() {
    assertThat(EplModelCheck.segments("a.`b.c`.d?('k.x')[0].e"))
        .containsExactly("a", "b.c", "d", "e");
    assertThat(EplModelCheck.segments("data('class')")).containsExactly("data");
    assertThat(refusal("select data('k').`Class` from R"))
        .contains("property 'Class' is not allowed");
  }

  @Test
  void anInputAliasMayNotShadowAPackageRootOrAStaticClass() {
    for (String alias : List.of("java", "org", "Math")) {
      assertThatThrownBy(() -> guard.check("select * from " + alias, Set.of(alias), PROPERTIES))
          .isInstanceOfSatisfying(
              InvalidInputException.class,
              e ->
                  assertThat(e.errors().get(0).reason())
                      .contains("the name '" + alias + "' is not allowed for a stream"));
    }
  }

  @Test
  void theWholeStatementIsWalkedWithTheAllowedGuardsObserversAndAggregations() {
    assertThatCode(
            () ->
                guard.check(
                    "select rate(10) as r, nth(data.value, 1) as n, leaving() as l, "
                        + "maxbyever(data.value) as m from R#length(3)",
                    Set.of("R"),
                    PROPERTIES))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                guard.check(
                    "select * from pattern @SuppressOverlappingMatches [every a=R -> "
                        + "(b=R where timer:within(10 sec)) while (b.id != a.id)]",
                    Set.of("R"),
                    PROPERTIES))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                guard.check(
                    "select * from pattern [every timer:interval(10 sec) and timer:at(*, *, *, *, *)]",
                    Set.of("R"),
                    PROPERTIES))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                guard.check("select * from R output at (*/1, *, *, *, *)", Set.of("R"), PROPERTIES))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                guard.check(
                    "select * from R match_recognize ( measures A[0].id as a pattern (A{3} B+) "
                        + "interval 10 sec define A as A.id is not null, B as B.id is null)",
                    Set.of("R"), PROPERTIES))
        .doesNotThrowAnyException();
    assertThat(
            refusal(
                "select * from R match_recognize ( measures A[0].id as a pattern ((A{10} B){10}) "
                    + "define A as A.id is not null, B as B.id is null)"))
        .contains("expands to 110 states, above the limit of 100");
    assertThatCode(
            () ->
                guard.check(
                    "select * from R#win:length(3)#ext:sort(3, id)", Set.of("R"), PROPERTIES))
        .doesNotThrowAnyException();
  }
}
