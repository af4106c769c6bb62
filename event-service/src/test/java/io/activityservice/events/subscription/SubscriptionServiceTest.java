package io.activityservice.events.subscription;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.support.Events;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

class SubscriptionServiceTest {

  private static final String READING = "com.example.meter.reading";

  private DataSource ds;
  private SubscriptionRepository repository;
  private SubscriptionIndex index;
  private ChannelRegistry channels;
  private SubscriptionService service;

  @BeforeEach
  void setUp() {
    ds = TestDatabases.newH2();
    repository = new SubscriptionRepository(JdbcClient.create(ds));
    index = new SubscriptionIndex();
    channels =
        new ChannelRegistry(List.of(new FakeChannelAdapter("fake"), new FakeChannelAdapter("mem")));
    service = new SubscriptionService(repository, index, channels, Clock.systemUTC());
  }

  private Subscription create(String name, String pattern, String filter) {
    return service.create(
        name,
        pattern == null ? null : Json.parse(pattern, "pattern"),
        filter,
        "fake:" + name,
        null,
        null);
  }

  private static Set<String> names(SubscriptionIndex idx, RoutableEvent e) {
    return idx.match(e.event(), e.json()).stream()
        .map(en -> en.subscription().name())
        .collect(Collectors.toSet());
  }

  private Set<String> matches(RoutableEvent e) {
    return names(index, e);
  }

  private static RoutableEvent reading(Map<String, ?> data) {
    return Events.routable(READING, data);
  }

  private InvalidInputException invalid(Runnable r) {
    InvalidInputException e = catchThrowableOfType(InvalidInputException.class, r::run);
    assertThat(e).as("expected InvalidInputException").isNotNull();
    return e;
  }

  @Test
  void numericComparisonOnADataField() {
    create("big", "{\"data\": {\"value\": [{\"numeric\": [\">\", 100]}]}}", null);
    create("band", "{\"data\": {\"value\": [{\"numeric\": [\">=\", 10, \"<\", 20.5]}]}}", null);

    assertThat(matches(reading(Map.of("value", 150)))).containsExactly("big");
    assertThat(matches(reading(Map.of("value", 100)))).isEmpty();
    assertThat(matches(reading(Map.of("value", 10)))).containsExactly("band");
    assertThat(matches(reading(Map.of("value", 20.25)))).containsExactly("band");
    assertThat(matches(reading(Map.of("value", 20.5)))).isEmpty();
    assertThat(matches(reading(Map.of("value", "150")))).as("a string is not a number").isEmpty();
  }

  @Test
  void prefixOnTheType() {
    create("meters", "{\"type\": [{\"prefix\": \"com.example.meter.\"}]}", null);

    assertThat(matches(reading(Map.of()))).containsExactly("meters");
    assertThat(matches(Events.routable("com.example.meterx", Map.of()))).isEmpty();
    assertThat(matches(Events.routable("org.example.meter.reading", Map.of()))).isEmpty();
  }

  @Test
  void anythingBut() {
    create("not-ok", "{\"data\": {\"status\": [{\"anything-but\": [\"ok\", \"idle\"]}]}}", null);

    assertThat(matches(reading(Map.of("status", "alarm")))).containsExactly("not-ok");
    assertThat(matches(reading(Map.of("status", "ok")))).isEmpty();
    assertThat(matches(reading(Map.of("status", "idle")))).isEmpty();
  }

  @Test
  void existsTrueAndFalse() {
    create("has-alarm", "{\"data\": {\"alarm\": [{\"exists\": true}]}}", null);
    create(
        "no-alarm",
        "{\"type\": [\"" + READING + "\"], \"data\": {\"alarm\": [{\"exists\": false}]}}",
        null);

    assertThat(matches(reading(Map.of("alarm", "smoke")))).containsExactly("has-alarm");
    assertThat(matches(reading(Map.of("value", 1)))).containsExactly("no-alarm");
  }

  @Test
  void orMatchesEitherBranchAndReportsTheSubscriptionOnce() {
    create(
        "either",
        """
        {"$or": [{"data": {"meter": ["m1"]}}, {"data": {"value": [{"numeric": [">=", 1000]}]}}]}""",
        null);

    assertThat(matches(reading(Map.of("meter", "m1", "value", 1)))).containsExactly("either");
    assertThat(matches(reading(Map.of("meter", "m2", "value", 5000)))).containsExactly("either");
    assertThat(matches(reading(Map.of("meter", "m2", "value", 5)))).isEmpty();
    RoutableEvent both = reading(Map.of("meter", "m1", "value", 5000));
    assertThat(index.match(both.event(), both.json())).hasSize(1);
  }

  @Test
  void cesqlFilterIsAppliedAfterThePattern() {
    create(
        "north-meters", "{\"type\": [{\"prefix\": \"com.example.meter.\"}]}", "subject = 'north'");
    create("north-any", null, "subject = 'north' AND type LIKE 'com.example.%'");

    RoutableEvent northReading =
        RoutableEvent.of(Events.builder(READING, Map.of()).withSubject("north").build());
    RoutableEvent southReading =
        RoutableEvent.of(Events.builder(READING, Map.of()).withSubject("south").build());
    RoutableEvent northOrder =
        RoutableEvent.of(
            Events.builder("com.example.order", Map.of()).withSubject("north").build());

    assertThat(matches(northReading)).containsExactlyInAnyOrder("north-meters", "north-any");
    assertThat(matches(southReading)).isEmpty();
    assertThat(matches(northOrder)).containsExactly("north-any");
    // An expression that fails to evaluate (no subject at all) does not match.
    assertThat(matches(reading(Map.of()))).isEmpty();
  }

  @Test
  void subscriptionWithoutPatternMatchesEverything() {
    create("all", null, null);
    create("all-empty", "{}", null);
    create("only-orders", "{\"type\": [\"com.example.order\"]}", null);

    assertThat(matches(reading(Map.of()))).containsExactlyInAnyOrder("all", "all-empty");
    assertThat(matches(Events.routable("anything.else", null)))
        .containsExactlyInAnyOrder("all", "all-empty");
    assertThat(matches(Events.routable("com.example.order", null)))
        .containsExactlyInAnyOrder("all", "all-empty", "only-orders");
  }

  @Test
  void deleteRemovesFromMatchingAndStorage() {
    Subscription patterned = create("patterned", "{\"data\": {\"meter\": [\"m1\"]}}", null);
    Subscription all = create("all", null, null);
    Subscription other = create("other", "{\"data\": {\"meter\": [\"m1\"]}}", null);
    RoutableEvent m1 = reading(Map.of("meter", "m1"));
    assertThat(matches(m1)).containsExactlyInAnyOrder("patterned", "all", "other");

    service.delete(patterned.id());
    service.delete(all.id());

    assertThat(matches(m1)).containsExactly("other");
    assertThat(service.list()).extracting(Subscription::id).containsExactly(other.id());
    assertThatThrownBy(() -> service.delete(patterned.id())).isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> service.get(patterned.id())).isInstanceOf(NotFoundException.class);
  }

  @Test
  void deletingOrAndNumericSubscriptionsRemovesThemFromMatching() {
    Subscription or =
        create(
            "either",
            """
        {"$or": [{"data": {"meter": ["m1"]}}, {"data": {"value": [{"numeric": [">=", 1000]}]}}]}""",
            null);
    Subscription numeric =
        create("big", "{\"data\": {\"value\": [{\"numeric\": [\">\", 100]}]}}", null);
    create("keep", "{\"data\": {\"meter\": [\"m1\"]}}", null);
    RoutableEvent e = reading(Map.of("meter", "m1", "value", 5000));
    assertThat(matches(e)).containsExactlyInAnyOrder("either", "big", "keep");

    service.delete(or.id());
    service.delete(numeric.id());

    assertThat(matches(e)).containsExactly("keep");
    assertThat(matches(reading(Map.of("meter", "m2", "value", 5000)))).isEmpty();
  }

  @Test
  void createStoresTheSubscriptionWithDefaultsAndTrimmedFields() {
    Subscription s =
        service.create(
            "  readings  ",
            Json.parse("{\"type\": [\"" + READING + "\"]}", "p"),
            "  ",
            "mem:readings",
            null,
            " ");
    Subscription stored = service.get(s.id());
    assertThat(stored.name()).isEqualTo("readings");
    assertThat(stored.filter()).isNull();
    assertThat(stored.deadLetter()).isNull();
    assertThat(stored.retry()).isEqualTo(RetryPolicy.DEFAULT);
    assertThat(stored.target()).isEqualTo("mem:readings");
    assertThat(index.get(s.id()).target().scheme()).isEqualTo("mem");
  }

  @Test
  void invalidPatternNamesPattern() {
    JsonNode leafNotArray = Json.parse("{\"data\": {\"value\": 5}}", "p");
    JsonNode badOperator = Json.parse("{\"data\": {\"value\": [{\"numeric\": [\"~\", 5]}]}}", "p");
    JsonNode notObject = Json.parse("[\"x\"]", "p");
    for (JsonNode p : List.of(leafNotArray, badOperator, notObject)) {
      InvalidInputException e = invalid(() -> service.create("s", p, null, "fake:x", null, null));
      assertThat(e.errors())
          .as("pattern %s", p)
          .extracting(FieldError::field)
          .containsExactly("pattern");
    }
    assertNothingStored();
  }

  @Test
  void invalidCesqlNamesFilter() {
    InvalidInputException e =
        invalid(() -> service.create("s", null, "subject = ", "fake:x", null, null));
    assertThat(e.errors()).extracting(FieldError::field).containsExactly("filter");
    InvalidInputException e2 =
        invalid(() -> service.create("s", null, "subject === 'a' ((", "fake:x", null, null));
    assertThat(e2.errors()).extracting(FieldError::field).containsExactly("filter");
    assertNothingStored();
  }

  @Test
  void unknownSchemeNamesTargetAndListsKnownSchemes() {
    InvalidInputException e =
        invalid(() -> service.create("s", null, null, "kafka:orders", null, null));
    assertThat(e.errors()).extracting(FieldError::field).containsExactly("target");
    assertThat(e.errors().get(0).reason()).contains("kafka").contains("known schemes: fake, mem");
    assertNothingStored();
  }

  @Test
  void badTargetsAndDeadLettersNameTheirField() {
    assertThat(invalid(() -> service.create("s", null, null, null, null, null)).errors())
        .extracting(FieldError::field)
        .containsExactly("target");
    assertThat(invalid(() -> service.create("s", null, null, "no-scheme", null, null)).errors())
        .extracting(FieldError::field)
        .containsExactly("target");
    assertThat(
            invalid(() -> service.create("s", null, null, "fake:invalid-address", null, null))
                .errors())
        .extracting(FieldError::field)
        .containsExactly("target");
    assertThat(invalid(() -> service.create("s", null, null, "fake:ok", null, "sqs:dlq")).errors())
        .extracting(FieldError::field)
        .containsExactly("deadLetter");
    assertThat(invalid(() -> service.create(" ", null, null, "fake:ok", null, null)).errors())
        .extracting(FieldError::field)
        .containsExactly("name");
    assertNothingStored();
  }

  @Test
  void invalidRetryPolicyNamesTheRetryField() {
    assertThat(
            catchThrowableOfType(
                    InvalidInputException.class,
                    () ->
                        new RetryPolicy(
                            0, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofMillis(1)))
                .errors())
        .extracting(FieldError::field)
        .containsExactly("retry.maxAttempts");
    assertThat(
            catchThrowableOfType(
                    InvalidInputException.class,
                    () ->
                        new RetryPolicy(
                            3, Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMinutes(1)))
                .errors())
        .extracting(FieldError::field)
        .containsExactly("retry.maxBackoff");
  }

  @Test
  void loadAllAfterRestartRestoresMatching() {
    create("m1", "{\"data\": {\"meter\": [\"m1\"]}}", null);
    create("big", "{\"data\": {\"value\": [{\"numeric\": [\">\", 100]}]}}", "subject = 'north'");
    create("all", null, null);
    Subscription deleted = create("deleted", "{\"data\": {\"meter\": [\"m1\"]}}", null);
    service.delete(deleted.id());

    SubscriptionIndex freshIndex = new SubscriptionIndex();
    SubscriptionService restarted =
        new SubscriptionService(
            new SubscriptionRepository(JdbcClient.create(ds)),
            freshIndex,
            channels,
            Clock.systemUTC());
    assertThat(freshIndex.size()).isZero();
    restarted.loadAll();

    assertThat(freshIndex.size()).isEqualTo(3);
    RoutableEvent e =
        RoutableEvent.of(
            Events.builder(READING, Map.of("meter", "m1", "value", 500))
                .withSubject("north")
                .build());
    assertThat(names(freshIndex, e)).containsExactlyInAnyOrder("m1", "big", "all");
    RoutableEvent south =
        RoutableEvent.of(
            Events.builder(READING, Map.of("meter", "m2", "value", 500))
                .withSubject("south")
                .build());
    assertThat(names(freshIndex, south)).containsExactly("all");
  }

  @Test
  void loadAllSkipsSubscriptionsWhoseAdapterIsGoneButActivatesTheRest() {
    service.create("on-mem", null, null, "mem:x", null, null);
    service.create("on-fake", null, null, "fake:x", null, null);

    SubscriptionIndex freshIndex = new SubscriptionIndex();
    new SubscriptionService(
            repository,
            freshIndex,
            new ChannelRegistry(List.of(new FakeChannelAdapter("fake"))),
            Clock.systemUTC())
        .loadAll();

    assertThat(names(freshIndex, reading(Map.of()))).containsExactly("on-fake");
    assertThat(repository.findAll()).hasSize(2);
  }

  private void assertNothingStored() {
    assertThat(repository.findAll()).isEmpty();
    assertThat(index.size()).isZero();
    assertThat(matches(reading(Map.of("value", 5)))).isEmpty();
  }
}
