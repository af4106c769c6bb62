package io.activityservice.rules.compile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.rules.compile.internal.SourceCheck;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the guard lets through (and Drools then compiles) and what it refuses beyond the escape
 * corpus: each refusal names the construct and the user's line. Pure logic over real Drools parsing
 * and compilation; no session runs here.
 */
class DrlGuardTest {

  final RuleCompiler compiler = new RuleCompiler(Duration.ofMinutes(10));

  /** Everything a rule may use, at once: Drools compiles it after the guard accepted it. */
  static final String ALLOWED =
      """
      import java.util.List;
      declare Alert
        @role(event)
        user : String @key
        count : long
      end
      declare window Recent
        Event( type == "m" ) over window:time( 1m )
      end
      function String label(Event e) {
        String t = e.getType();
        return t == null ? "none" : t.toLowerCase();
      }
      query "by type" (String t)
        Event( type == t )
      end
      rule "everything allowed"
      salience 10
      no-loop
      when
        $e : Event( type in ("a", 'b'), $d : data, $d.get("k") != null, text("s") matches "x.*", this.data.size > 0 )
        $last : Event( type == 'c', this after[0s,10s] $e, getData().containsKey("k"), text("u") == $e.text("u") )
        not Event( type == "c", this after $last )
        $n : Number( doubleValue > 2 ) from accumulate( $f : Event( type == "m" ) over window:time( 10m ),
            sum( $f.number("v") ) )
        $l : java.util.List( size > 1 ) from collect( Event( type == "m" ) )
        accumulate( Event( type == "m", $v : number("v") ) over window:length( 100 ); $avg : average( $v ),
            $mx : max( $v ) )
        forall( Event( type == "m" ) Event( type == "m", number("v") > 0 ) )
        $r : Event( type == "m" ) from window Recent
        eval( $e.number("v") > Math.abs(-1) )
      then
        String s = $e.text("a");
        var m = $e.getData();
        if (s != null && s.startsWith("x") && m.containsKey("k")) {
          actions.run("log", Map.of("m", s.toUpperCase(), "n", $n, "l", List.of(1, 2), "avg", $avg,
              "f", String.format("%5.2f", 1.5), "label", label($r)));
        } else {
          return;
        }
        int x = 1;
        x += Integer.parseInt("2");
        double d = (double) x / Math.max(1, 2) + Double.NaN;
        actions.run("log", Map.of("x", x, "d", d, "b", $e.getTime() > 0 ? "yes" : "no", "size", $l.size()));
      end
      rule "a delay"
      timer (int: 30s)
      when
        $e : Event( type == "q" ) from entry-point "other"
      then
        actions.run("log", Map.of("id", $e.getId(), "path", "C:\\\\users"));
      end
      """;

  @Test
  void everythingOnTheAllowListCompiles() {
    CompiledRule rule = compiler.compile("allowed", ALLOWED);
    assertThat(rule.kieBase().getKiePackage("io.activityservice.rules.deployed").getRules())
        .hasSize(3);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
      repeating timer      | rule "o" timer (int: 1ms 1ms) when Event( type == "a" ) then end                             | 1 | single literal delay
      cron timer           | rule "o" timer (cron: * * * * * ?) when Event( type == "a" ) then end                       | 1 | single literal delay
      expression timer     | rule "o" timer (expr: $d) when Event( type == "a", $d : text("d") ) then end                | 1 | single literal delay
      field type           | declare Foo x : java.io.File end                                                            | 1 | 'java.io.File': file I/O
      query parameter      | query q(java.io.File f) Event() end                                                          | 1 | 'java.io.File'
      package dialect      | dialect "mvel" rule "o" when Event( type == "a" ) then end                                  | 1 | 'dialect "mvel"'
      regex from data      | rule "o" when Event( type == "a", text("x") matches text("y") ) then end                    | 1 | must be a string literal
      shared data changed  | rule "o" when $e : Event( type == "a" ) then $e.getData().put("x", 1); end                  | 1 | 'put(..)'
      cast and clear       | rule "o" when $e : Event( type == "a" ) then ((Map) $e.getData()).clear(); end              | 1 | 'clear(..)'
      enabled expression   | rule "o" enabled (System.exit(0) == null) when Event( type == "a" ) then end               | 1 | 'System.exit(..)'
      action in condition  | rule "o" when Event( type == "a", actions.run("log", Map.of()) == null ) then end           | 1 | only be run in consequences
      MVEL null-safe       | rule "o" when $e : Event( type == "a", $e!.type == "x" ) then end                           | 1 | not plain Java
      OOPath               | rule "o" when $e : Event( type == "a", /data[ true ] ) then end                             | 1 | not plain Java
      global               | global java.util.List sink; rule "o" when Event( type == "a" ) then end                     | 1 | 'global java.util.List sink'
      class as fact type   | rule "o" when java.lang.Runtime() then end                                                  | 1 | 'java.lang.Runtime( )'
      extends a class      | declare Worker extends java.lang.Thread end                                                 | 1 | may not extend a class
      shadows Math         | declare Math x : int end                                                                    | 1 | 'declare Math'
      enum                 | declare enum Color RED("r"); code : String end                                              | 1 | 'declare enum Color'
      named consequence    | rule "o" when $e : Event( type == "a" ) do[x] then actions.run("log", Map.of()); then[x] end | 1 | named consequences
      local named drools   | rule "o" when $e : Event( type == "a" ) then Object drools = null; end                      | 1 | 'drools'
      synchronized         | rule "o" when $e : Event( type == "a" ) then synchronized ($e) { return; } end              | 1 | 'synchronized'
      try                  | rule "o" when $e : Event( type == "a" ) then try { return; } catch (Exception x) { } end     | 1 | 'try'
      wait                 | rule "o" when $e : Event( type == "a" ) then $e.wait(); end                                 | 1 | 'wait(..)'
      insert               | rule "o" when $e : Event( type == "a" ) then insert(Map.of()); end                          | 1 | 'insert(..)': working-memory
      dynamic format       | rule "o" when $e : Event( type == "a" ) then String.format($e.text("f"), 1); end            | 1 | format must be a string literal
      string multiplier    | rule "o" when $e : Event( type == "a" ) then String s = $e.text("x").replace("", "xx"); end | 1 | 'replace(..)'
      custom accumulate    | rule "o" when $n : Number() from accumulate( $f : Event( type == "m" ), myFn( $f ) ) then end | 1 | 'myFn(..)'
      accumulate import    | import accumulate com.example.Evil evil; rule "o" when Event( type == "a" ) then end       | 1 | custom accumulate functions
      static import        | import static java.lang.Math.abs; rule "o" when Event( type == "a" ) then end              | 1 | function and static imports
      identifier escape    | rule "o" when $e : Event( type == "a" ) then \\u0053ystem.exit(0); end                     | 1 | 'unicode escape
      method breakout      | rule "o" when $e : Event( type == "a" ) then return; } { Math.abs(1); end                   | 1 | not plain Java
      getter-like field    | declare Foo classLoader : String end                                                       | 1 | 'field classLoader': a field may not be named
      huge length window   | rule "o" when Number() from accumulate( $f : Event() over window:length( 200000000 ), count( $f ) ) then end | 1 | at most 100000 events
      """)
  void refuses(String what, String drl, int line, String expected) {
    InvalidInputException e = refused(drl);
    assertThat(e.errors()).extracting(FieldError::field).containsOnly("drl");
    assertThat(e.errors())
        .extracting(FieldError::reason)
        .as(what)
        .anySatisfy(r -> assertThat(r).startsWith("line " + line + ": ").contains(expected));
  }

  /** The allowed forms of declaration annotations and attributes still compile. */
  @Test
  void declarationsAndAttributesInTheirAllowedFormsCompile() {
    CompiledRule rule =
        compiler.compile(
            "declared",
            """
        declare Event
          @role( Event )
          @timestamp( "time" )
          @expires( 1h30m )
        end
        declare Reading
          @role(event)
          @timestamp(at)
          @duration(span)
          @propertyReactive
          meter : String @key @position(0)
          at : long
          span : long
        end
        rule "attributes"
        salience ( 10 + 5 )
        enabled true
        no-loop true
        lock-on-active false
        auto-focus false
        agenda-group "grid load"
        activation-group "one-of"
        date-effective "01-Jan-2020"
        date-expires "01-Jan-2099"
        calendars "weekdays", "nights"
        when
          $e : Event( type == "a" )
        then
          actions.run("log", Map.of("id", $e.getId()));
        end
        """);
    assertThat(rule.kieBase().getKiePackage("io.activityservice.rules.deployed").getRules())
        .hasSize(1);
  }

  @Test
  void refusalsNameTheUsersLinesInsideCode() {
    InvalidInputException e =
        refused(
            """
        // a comment
        function int twice(int x) {
          int y = x * 2;
          return Integer.valueOf(y).getClass().hashCode();
        }
        rule "r"
        when
          $e : Event( type == "a",
                      number("v") > 1,
                      getData().getClass() != null )
        then actions.run("log", Map.of());
          actions.run("log", Map.of("n", twice(1)));
          System.exit(1);
        end
        """);
    assertThat(e.errors())
        .extracting(FieldError::reason)
        .containsExactly(
            "line 4: 'getClass(..)': reflection is not allowed",
            "line 10: 'getClass(..)': reflection is not allowed",
            "line 13: 'System.exit(..)': access to the JVM and to processes is not allowed");
  }

  @Test
  void theSecondLineOfDefenceRefusesDeniedNamesWhereNoCodeIsExpected() {
    // A rule name and a query parameter are names, not calls, so the structural checks let them
    // pass; the
    // name scan still refuses them, as it would any text a parser might read differently from
    // Drools.
    assertThat(refused("rule exit when Event( type == \"a\" ) then end").errors())
        .extracting(FieldError::reason)
        .containsExactly("line 1: 'exit': access to the JVM and to processes is not allowed");
    assertThat(refused("query \"q\" (String exec)\n  Event( type == exec )\nend").errors())
        .extracting(FieldError::reason)
        .containsExactly(
            "line 1: 'exec': access to the JVM and to processes is not allowed",
            "line 2: 'exec': access to the JVM and to processes is not allowed");
  }

  @Test
  void unicodeEscapesAreRefusedEvenInStringsAndCommentsButEscapedBackslashesAreNot() {
    assertThat(SourceCheck.lexical("x = \"\\u0041\"")).hasSize(1);
    assertThat(SourceCheck.lexical("// \\u000a code")).hasSize(1);
    assertThat(SourceCheck.lexical("x = \"\\\\\\u0041\"")).hasSize(1); // \\ then \u0041
    assertThat(SourceCheck.lexical("x = \"C:\\\\users\"")).isEmpty(); // \\ then u: no escape
  }

  @Test
  void namesInStringsAndCommentsAreNotCode() {
    CompiledRule rule =
        compiler.compile(
            "words",
            """
        // System overload alert: exec the runbook (comments are not code)
        rule "System.exit is just a rule name"
        when
          $e : Event( type == "com.example.System.exit" )
        then
          actions.run("log", Map.of("message", "Runtime.getRuntime().exec(\\"x\\") is only text"));
        end
        """);
    assertThat(rule.types().types()).containsExactly("com.example.System.exit");
  }

  private InvalidInputException refused(String drl) {
    InvalidInputException e =
        catchThrowableOfType(InvalidInputException.class, () -> compiler.compile("bad", drl));
    assertThat(e).as("refused: %s", drl).isNotNull();
    return e;
  }
}
