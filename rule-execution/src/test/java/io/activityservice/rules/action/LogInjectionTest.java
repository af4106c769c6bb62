package io.activityservice.rules.action;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.activityservice.events.log.LogSafe;
import io.activityservice.rules.RoutingHarness;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Log forging through rules (issue 19): user text a rule puts into the log (its {@code log}
 * message, from the DRL or from the event's data, the rule's name, the event id, an action's
 * handler name) cannot start a log line of its own or hide one. Each case runs on the real path
 * ({@link RoutingHarness}, the real {@code log} action) and renders the captured log as the
 * service's file appender would: one line per log call, none starting with the forged text, no
 * control character left, the message bounded. Logging user text is allowed, so these cases are not
 * refused: the effect (a forged line) is what must be absent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LogInjectionTest {

  static final String FORGED =
      "2026-01-01 00:00:00.000 ERROR [main] o.s.security.Audit - admin key rotated";

  RoutingHarness h;
  ListAppender<ILoggingEvent> captured;
  PatternLayoutEncoder encoder;
  final List<Logger> loggers =
      Stream.of(
              "activity.rules",
              ActionDispatcher.class.getName(),
              "io.activityservice.rules.engine.RuleSession")
          .map(n -> (Logger) LoggerFactory.getLogger(n))
          .toList();

  @BeforeAll
  void start() {
    h = new RoutingHarness();
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n");
    encoder.start();
    captured = new ListAppender<>();
    captured.setContext(context);
    captured.start();
    loggers.forEach(l -> l.addAppender(captured));
  }

  @AfterAll
  void stop() {
    loggers.forEach(l -> l.detachAppender(captured));
    h.close();
  }

  static Stream<Arguments> injections() {
    return Stream.of(
        Arguments.of(
            "lf-in-drl-message",
            "actions.run(\"log\", Map.of(\"message\", \"ok\\n" + FORGED + "\"));",
            "{}"),
        Arguments.of(
            "cr-in-drl-message",
            "actions.run(\"log\", Map.of(\"message\", \"ok\\r" + FORGED + "\"));",
            "{}"),
        Arguments.of(
            "crlf-in-drl-message",
            "actions.run(\"log\", Map.of(\"message\", \"ok\\r\\n" + FORGED + "\"));",
            "{}"),
        Arguments.of(
            "lf-from-event-data",
            "actions.run(\"log\", Map.of(\"message\", $e.text(\"msg\")));",
            "{\"msg\": \"ok\\n" + FORGED + "\"}"),
        Arguments.of(
            "line-separator-from-event-data",
            "actions.run(\"log\", Map.of(\"message\", $e.text(\"msg\")));",
            "{\"msg\": \"ok\\u2028" + FORGED + "\"}"),
        Arguments.of(
            "next-line-from-event-data",
            "actions.run(\"log\", Map.of(\"message\", $e.text(\"msg\")));",
            "{\"msg\": \"ok\\u0085" + FORGED + "\"}"),
        Arguments.of(
            "ansi-escape-from-event-data",
            "actions.run(\"log\", Map.of(\"message\", $e.text(\"msg\")));",
            "{\"msg\": \"ok\\u001b[2K\\r" + FORGED + "\"}"),
        Arguments.of(
            "bidi-override-from-event-data",
            "actions.run(\"log\", Map.of(\"message\", $e.text(\"msg\")));",
            "{\"msg\": \"ok\\u202e" + FORGED + "\"}"),
        Arguments.of(
            "message-as-a-map",
            "actions.run(\"log\", Map.of(\"message\", Map.of(\"k\", \"v\\n" + FORGED + "\")));",
            "{}"),
        Arguments.of("handler-name", "actions.run(\"log\\n" + FORGED + "\", Map.of());", "{}"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("injections")
  void userTextCannotForgeALogLine(String id, String consequence, String data) {
    String rule = "log-" + id;
    h.service.create(
        rule,
        """
        rule "logs"
        when
          $e : Event( type == "com.example.log.%s" )
        then
          %s
        end"""
            .formatted(id, consequence));
    int before = captured.list.size();
    h.publish("event-" + id, "com.example.log." + id, data);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.engine.executions(rule).size() == 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> captured.list.size() > before);

    List<ILoggingEvent> logged = List.copyOf(captured.list.subList(before, captured.list.size()));
    for (ILoggingEvent e : logged) {
      String line = new String(encoder.encode(e), StandardCharsets.UTF_8);
      assertThat(line.split("\n", -1)).as("one line: %s", line).hasSize(2);
      assertThat(line.substring(0, line.length() - 1))
          .as(line)
          .doesNotContain("\r", "\u2028", "\u0085", "\u001b", "\u202e")
          .contains("\\")
          .contains("admin key rotated");
      assertThat(Arrays.stream(line.split("[\\r\\n\\u2028\\u0085]")))
          .noneMatch(l -> l.startsWith("2026-01-01"));
    }
    h.service.delete(rule);
  }

  @Test
  void anEventIdWithALineBreakIsEscapedToo() {
    h.service.create(
        "log-event-id",
        """
        rule "logs"
        when
          $e : Event( type == "com.example.log.id" )
        then
          actions.run("log", Map.of("message", "seen"));
        end""");
    int before = captured.list.size();
    h.publish("id\n" + FORGED, "com.example.log.id", "{}");
    await().atMost(Duration.ofSeconds(10)).until(() -> captured.list.size() > before);
    String line = new String(encoder.encode(captured.list.get(before)), StandardCharsets.UTF_8);
    assertThat(line).contains("[event id\\n2026-01-01").endsWith("\n").hasLineCount(1);
    h.service.delete("log-event-id");
  }

  @Test
  void aHugeMessageIsBounded() {
    String huge = "x".repeat(100_000);
    assertThat(LogSafe.message(huge))
        .hasSize(LogSafe.MAX_MESSAGE_LENGTH + "…(+99000 chars)".length())
        .endsWith("…(+99000 chars)");
    assertThat(LogSafe.message("plain text")).isSameAs("plain text").isEqualTo("plain text");
    assertThat(LogSafe.message("a\tb\u0000c")).isEqualTo("a\\tb\\u0000c");
    assertThat(LogSafe.message(null)).isEqualTo("null");
  }
}
