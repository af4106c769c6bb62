package io.activityservice.detector;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.activityservice.detector.internal.DetectorRepository;
import io.activityservice.events.definition.DefinitionLifecycle;
import io.activityservice.events.log.LogSafe;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Log forging through detectors (issue 19): refusals quote the EPL (here a backtick-quoted name
 * holding a line break and a forged log line), so a stored detector would write that line when its
 * redeployment fails at start-up. The message is escaped to one line; the detector is reported as
 * failed, with the message intact in its state.
 */
class DetectorLogInjectionTest {

  static final String FORGED =
      "2026-01-01 00:00:00.000 ERROR [main] o.s.security.Audit - admin key rotated";

  @Test
  void aStoredDetectorsEplCannotForgeALogLineWhenItFailsToDeploy() {
    Logger logger = (Logger) LoggerFactory.getLogger(DefinitionLifecycle.class);
    LoggerContext context = logger.getLoggerContext();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n");
    encoder.start();
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.setContext(context);
    captured.start();
    logger.addAppender(captured);
    try (Harness h = new Harness(8)) {
      h.registry.create("com.example.forge", "readings", null, null);
      new DetectorRepository(h.jdbc)
          .insert(
              new DetectorDefinition(
                  "forger",
                  Map.of("R", "com.example.forge"),
                  "select java.`x\n" + FORGED + "`.y as v from R",
                  "com.example.forged",
                  ClockMode.EVENT_TIME,
                  OffsetDateTime.now()));
      h.service.loadAll();

      assertThat(h.service.get("forger").state()).isEqualTo("failed");
      assertThat(h.service.get("forger").error()).contains("\n" + FORGED);
      assertThat(captured.list).isNotEmpty();
      for (ILoggingEvent e : captured.list) {
        String line = new String(encoder.encode(e), StandardCharsets.UTF_8);
        assertThat(line).as(line).hasLineCount(1).contains("\\n" + FORGED);
      }
    } finally {
      logger.detachAppender(captured);
    }
  }

  @Test
  void logTextEscapesControlCharactersAndBoundsLength() {
    assertThat(LogSafe.message("a\r\nb\u2028c\u001bd")).isEqualTo("a\\r\\nb\\u2028c\\u001bd");
    assertThat(LogSafe.message("x".repeat(5000)))
        .startsWith("x".repeat(LogSafe.MAX_MESSAGE_LENGTH))
        .endsWith("…(+4000 chars)");
    assertThat(LogSafe.message("plain")).isEqualTo("plain");
  }
}
