package io.activityservice.rules.compile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.events.schema.EventsSchema;
import io.activityservice.events.schema.ModuleMigrations;
import io.activityservice.rules.Event;
import io.activityservice.rules.EventAccess;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.TestEvents.Recorder;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.engine.RuleEngine;
import io.activityservice.rules.internal.RuleRepository;
import io.activityservice.rules.service.RuleService;
import io.activityservice.rules.store.RulesSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The escape corpus ({@link EscapeAttempt}) against the real path of a rule: {@link
 * RuleService#create} with an H2 repository, the real {@link RuleEngine} and action dispatcher.
 * Each attempt must be refused with an {@link InvalidInputException} on field {@code drl} whose
 * message names the construct and the user's line; nothing may be stored or deployed; and nothing
 * may have run, neither while the service handled the DRL nor when an event of the attempt's
 * trigger type arrives afterwards: the canary file in a temporary directory does not exist, the
 * system property is not set, no thread of the attempt's name exists, the test's TCP server saw no
 * connection, the canary HTTP server (the trigger event's source and a URL in its data) received no
 * request, the trigger's routed JSON, what subscribers receive, is unchanged, and no action was
 * asked for. (An attempt aimed at {@code System.exit} or {@code halt} that ran would end this JVM,
 * which Surefire reports as a crashed fork.) {@link UnguardedControlTest} shows that the same texts
 * do run when Drools compiles them without the guard.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EscapeCorpusTest {

  static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;

  final Recorder log = new Recorder("log");
  final Recorder webhook = new Recorder("webhook");
  final AtomicInteger connections = new AtomicInteger();
  final AtomicInteger requests = new AtomicInteger();
  ServerSocket server;
  HttpServer http;
  Thread acceptor;
  RuleRepository repository;
  RuleEngine engine;
  ActionDispatcher dispatcher;
  RuleService service;

  @BeforeAll
  void start() throws IOException {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:escape-corpus;DB_CLOSE_DELAY=-1");
    ModuleMigrations.on(h2, EventsSchema.SCHEMA, RulesSchema.SCHEMA).migrate();
    repository = new RuleRepository(JdbcClient.create(h2));
    RuleSettings settings = RuleSettings.defaults();
    dispatcher =
        new ActionDispatcher(
            List.of(log, webhook), settings.actionConcurrency(), settings.actionQueueCapacity());
    engine = new RuleEngine(dispatcher, new SimpleMeterRegistry(), settings);
    service =
        new RuleService(
            repository, new RuleCompiler(settings.eventExpiry()), engine, Clock.systemUTC());

    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                  connections.incrementAndGet();
                } catch (IOException closed) {
                  return;
                }
              }
            },
            "escape-corpus-server");
    acceptor.setDaemon(true);
    acceptor.start();
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    http.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          exchange.sendResponseHeaders(200, 2);
          exchange.getResponseBody().write("42".getBytes(java.nio.charset.StandardCharsets.UTF_8));
          exchange.close();
        });
    http.start();
  }

  private String httpBase() {
    return "http://127.0.0.1:" + http.getAddress().getPort();
  }

  @AfterAll
  void stop() throws IOException {
    http.stop(0);
    server.close();
    engine.close();
    dispatcher.close();
  }

  static Stream<EscapeAttempt> attempts() {
    return EscapeAttempt.all().stream();
  }

  @Test
  void theCorpusCoversAtLeast90AttemptsWithKnownEffects() {
    List<EscapeAttempt> all = EscapeAttempt.all();
    assertThat(all).hasSizeGreaterThanOrEqualTo(90);
    assertThat(all)
        .allSatisfy(
            a -> {
              assertThat(EscapeAttempt.EFFECTS).as(a.id()).contains(a.effect());
              assertThat(a.template()).as(a.id()).contains(EscapeAttempt.TRIGGER);
            });
    assertThat(all).extracting(EscapeAttempt::effect).containsAll(EscapeAttempt.EFFECTS);
  }

  /**
   * The event that would run an attempt: its source and a URL in its data point at the canary HTTP
   * server.
   */
  private Event trigger(String id) {
    return Event.of(
        io.activityservice.events.model.RoutableEvent.of(
            io.cloudevents.core.builder.CloudEventBuilder.v1()
                .withId("trigger-" + id)
                .withSource(java.net.URI.create(httpBase() + "/source"))
                .withType(EscapeAttempt.TRIGGER)
                .withTime(
                    java.time.OffsetDateTime.ofInstant(
                        java.time.Instant.ofEpochMilli(T0), java.time.ZoneOffset.UTC))
                .withData(
                    "application/json",
                    ("{\"k\": \"v\", \"items\": [1, 2], \"o\": {\"x\": 1}, \"url\": \""
                            + httpBase()
                            + "/data\"}")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .build()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("attempts")
  void isRefusedAndNothingRuns(EscapeAttempt attempt) {
    String name = "escape-" + attempt.id();
    Path canary = dir.resolve(attempt.id() + ".canary");
    String property = "escape.canary." + attempt.id();
    String thread = "escape-thread-" + attempt.id();
    String drl = attempt.drl(canary, property, thread, server.getLocalPort(), httpBase());

    InvalidInputException refused =
        catchThrowableOfType(InvalidInputException.class, () -> service.create(name, drl));

    assertThat(refused).as("refused: %s", attempt).isNotNull();
    assertThat(refused.errors()).extracting(FieldError::field).containsOnly("drl");
    assertThat(refused.errors())
        .extracting(FieldError::reason)
        .as("the refusal names the construct and line")
        .anySatisfy(
            reason ->
                assertThat(reason)
                    .startsWith("line " + attempt.line() + ": ")
                    .contains(attempt.refused()));
    assertThat(repository.find(name)).as("stored").isEmpty();
    assertThat(engine.deployed(name)).as("deployed").isEmpty();

    Event trigger = trigger(attempt.id());
    String routedJson = Json.write(EventAccess.routable(trigger).json());
    engine.accept(trigger);
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(2))
        .until(
            () ->
                !Files.exists(canary)
                    && System.getProperty(property) == null
                    && Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().equals(thread))
                    && connections.get() == 0
                    && requests.get() == 0
                    && Json.write(EventAccess.routable(trigger).json()).equals(routedJson)
                    && log.calls.isEmpty()
                    && webhook.calls.isEmpty());
  }
}
