package io.activityservice.rules.compile;

import static io.activityservice.rules.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.rules.Event;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.TestEvents;
import io.activityservice.rules.TestEvents.Recorder;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.engine.RuleEngine;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every DRL in {@code examples/} passes the guard, compiles, and fires its action on a matching
 * event through the real engine. A new example without a case here fails {@link
 * #everyExampleHasACase}.
 */
class GuardedExamplesTest {

  static final long T0 = 1_700_000_000_000L;

  /**
   * What each example must do: the events to feed, the handler it calls and a parameter it sends.
   */
  record Case(List<Event> events, String handler, String param, Object value) {}

  static final Map<String, Case> CASES =
      Map.of(
          "smart-grid-overload.drl",
              new Case(
                  List.of(
                      event(
                          "ov-1",
                          "com.example.meter.overload",
                          T0,
                          "{\"feeder\": \"f7\", \"load\": 120, \"capacity\": 100}")),
                  "webhook",
                  "url",
                  "http://127.0.0.1:9999/grid/shed"),
          "inventory-reorder.drl",
              new Case(
                  List.of(
                      event(
                          "st-1",
                          "com.example.inventory.stocklevel",
                          T0,
                          "{\"sku\": \"A1\", \"store\": \"s3\", \"quantity\": 4, \"reorderLevel\": 10}")),
                  "publish",
                  "type",
                  "com.example.inventory.order"),
          "failed-logins.drl",
              new Case(
                  Stream.iterate(0, i -> i + 1)
                      .limit(4)
                      .map(
                          i ->
                              event(
                                  "f" + i,
                                  "com.example.auth.login.failed",
                                  T0 + i * 1000L,
                                  "{\"user\": \"alice\"}"))
                      .toList(),
                  "webhook",
                  "url",
                  "http://127.0.0.1:9999/security/alerts"));

  final RuleCompiler compiler = new RuleCompiler(Duration.ofMinutes(10));
  final Recorder webhook = new Recorder("webhook");
  final Recorder publish = new Recorder("publish");
  RuleEngine engine;
  ActionDispatcher dispatcher;

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
      dispatcher.close();
    }
  }

  @Test
  void everyExampleHasACase() throws IOException {
    assertThat(examples()).isNotEmpty().allSatisfy(file -> assertThat(CASES).containsKey(file));
  }

  @Test
  void everyExamplePassesTheGuardCompilesAndFires() throws IOException {
    RuleSettings settings = RuleSettings.defaults();
    dispatcher =
        new ActionDispatcher(
            List.of(webhook, publish),
            settings.actionConcurrency(),
            settings.actionQueueCapacity());
    engine = new RuleEngine(dispatcher, new SimpleMeterRegistry(), settings);
    for (String file : examples()) {
      engine.deploy(compiler.compile(file, TestEvents.example(file)));
    }
    CASES.values().forEach(c -> c.events().forEach(engine::accept));
    for (Map.Entry<String, Case> e : CASES.entrySet()) {
      Recorder recorder = e.getValue().handler().equals("webhook") ? webhook : publish;
      await(e.getKey())
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  recorder.calls.stream()
                      .anyMatch(
                          call ->
                              e.getKey().equals(call.context().rule())
                                  && e.getValue()
                                      .value()
                                      .equals(call.params().get(e.getValue().param()))));
    }
  }

  private static List<String> examples() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("examples"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".drl"))
          .sorted()
          .toList();
    }
  }
}
