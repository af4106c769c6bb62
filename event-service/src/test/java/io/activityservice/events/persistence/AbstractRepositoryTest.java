package io.activityservice.events.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.ingest.InboundChannelDefinition;
import io.activityservice.events.ingest.InboundChannelRepository;
import io.activityservice.events.json.Json;
import io.activityservice.events.registry.EventType;
import io.activityservice.events.registry.EventTypeRepository;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionRepository;
import io.activityservice.events.support.TestDatabases;
import java.net.URI;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Repository behaviour that must hold on every supported database. Subclasses supply a database
 * migrated with the production Flyway migrations.
 */
public abstract class AbstractRepositoryTest {

  /** A time with nanoseconds and a non-UTC offset: stored precision and offset may differ. */
  private static final OffsetDateTime T0 =
      OffsetDateTime.of(2026, 11, 21, 18, 30, 15, 123_456_789, ZoneOffset.ofHours(2));

  protected abstract DataSource dataSource();

  private EventTypeRepository types;
  private SubscriptionRepository subscriptions;
  private InboundChannelRepository inbound;

  @BeforeEach
  void setUpRepositories() {
    DataSource ds = dataSource();
    TestDatabases.clean(ds);
    JdbcClient jdbc = JdbcClient.create(ds);
    types = new EventTypeRepository(jdbc);
    subscriptions = new SubscriptionRepository(jdbc);
    inbound = new InboundChannelRepository(jdbc);
  }

  // ---- event types -------------------------------------------------------------------------

  private static EventType type(String name, String description) {
    return new EventType(
        name,
        description,
        "team-a",
        Json.parse(
            "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"number\"}}}", "schema"),
        1,
        T0,
        T0);
  }

  @Test
  void eventTypeRoundTripsEveryField() {
    EventType t = type("com.example.meter.reading", "A meter reading");
    assertThat(types.insert(t)).isTrue();

    EventType read = types.find("com.example.meter.reading").orElseThrow();
    assertThat(read.type()).isEqualTo(t.type());
    assertThat(read.description()).isEqualTo("A meter reading");
    assertThat(read.owner()).isEqualTo("team-a");
    assertThat(read.schema()).isEqualTo(t.schema());
    assertThat(read.version()).isEqualTo(1);
    assertThat(read.createdAt()).isCloseTo(T0, within(1, ChronoUnit.MILLIS));
    assertThat(read.updatedAt()).isCloseTo(T0, within(1, ChronoUnit.MILLIS));
    assertThat(types.find("com.example.other")).isEmpty();
  }

  @Test
  void eventTypeWithoutOptionalFieldsRoundTrips() {
    assertThat(types.insert(new EventType("bare", null, null, null, 1, T0, T0))).isTrue();

    EventType read = types.find("bare").orElseThrow();
    assertThat(read.description()).isNull();
    assertThat(read.owner()).isNull();
    assertThat(read.schema()).isNull();
  }

  @Test
  void insertingAnExistingTypeReturnsFalseAndKeepsTheOriginal() {
    assertThat(types.insert(type("t.one", "first"))).isTrue();
    assertThat(types.insert(type("t.one", "second"))).isFalse();
    assertThat(types.find("t.one").orElseThrow().description()).isEqualTo("first");
  }

  @Test
  void findAllIsOrderedByType() {
    types.insert(type("c.type", null));
    types.insert(type("a.type", null));
    types.insert(type("b.type", null));
    assertThat(types.findAll())
        .extracting(EventType::type)
        .containsExactly("a.type", "b.type", "c.type");
  }

  @Test
  void searchMatchesTypePrefixCaseInsensitively() {
    types.insert(type("com.example.Meter.reading", "readings"));
    types.insert(type("com.example.order.created", "orders"));
    types.insert(type("org.other.thing", "unrelated"));

    assertThat(types.search("COM.EXAMPLE.m"))
        .extracting(EventType::type)
        .containsExactly("com.example.Meter.reading");
    assertThat(types.search("com.example"))
        .extracting(EventType::type)
        .containsExactly("com.example.Meter.reading", "com.example.order.created");
    // Only a prefix of the name matches, not a substring.
    assertThat(types.search("example.order")).isEmpty();
  }

  @Test
  void searchMatchesDescriptionSubstringCaseInsensitively() {
    types.insert(type("t.gas", "Reading of a Gas Meter in the basement"));
    types.insert(type("t.water", "Reading of a water meter"));
    types.insert(type("t.none", null));

    assertThat(types.search("gas meter")).extracting(EventType::type).containsExactly("t.gas");
    assertThat(types.search("METER"))
        .extracting(EventType::type)
        .containsExactly("t.gas", "t.water");
  }

  @Test
  void searchIsCaseInsensitiveBeyondAscii() {
    types.insert(type("de.zähler.stand", "STROMZÄHLER IM KELLER"));
    types.insert(type("de.other", "Wasseruhr"));

    assertThat(types.search("stromzähler"))
        .extracting(EventType::type)
        .containsExactly("de.zähler.stand");
    assertThat(types.search("DE.ZÄHLER"))
        .extracting(EventType::type)
        .containsExactly("de.zähler.stand");
  }

  @Test
  void searchTreatsLikeWildcardsLiterally() {
    types.insert(type("a_b.x", "plain"));
    types.insert(type("axb.x", "plain"));
    types.insert(type("p.percent", "100% renewable"));
    types.insert(type("p.plain", "100 percent renewable"));
    types.insert(type("p.backslash", "path C:\\temp"));
    types.insert(type("p.other", "path C:temp"));

    assertThat(types.search("a_b")).extracting(EventType::type).containsExactly("a_b.x");
    assertThat(types.search("100%")).extracting(EventType::type).containsExactly("p.percent");
    assertThat(types.search("%")).extracting(EventType::type).containsExactly("p.percent");
    // Unescaped, "_%" would be "any type of at least one character".
    assertThat(types.search("_")).isEmpty();
    assertThat(types.search("a_")).extracting(EventType::type).containsExactly("a_b.x");
    assertThat(types.search("c:\\t")).extracting(EventType::type).containsExactly("p.backslash");
  }

  @Test
  void updateSucceedsOnlyForTheExpectedVersion() {
    types.insert(type("t.v", "v1"));
    OffsetDateTime t1 = T0.plusMinutes(5);
    JsonNode schema2 = Json.parse("{\"type\":\"object\",\"required\":[\"x\"]}", "schema");
    EventType v2 = new EventType("t.v", "v2", "team-b", schema2, 2, T0, t1);

    assertThat(types.update(v2, 1)).isTrue();
    // A writer that still believes version 1 loses.
    assertThat(types.update(new EventType("t.v", "stale", null, null, 2, T0, t1), 1)).isFalse();

    EventType read = types.find("t.v").orElseThrow();
    assertThat(read.version()).isEqualTo(2);
    assertThat(read.description()).isEqualTo("v2");
    assertThat(read.owner()).isEqualTo("team-b");
    assertThat(read.schema()).isEqualTo(schema2);
    assertThat(read.createdAt()).isCloseTo(T0, within(1, ChronoUnit.MILLIS));
    assertThat(read.updatedAt()).isCloseTo(t1, within(1, ChronoUnit.MILLIS));
  }

  @Test
  void updateOfMissingTypeReturnsFalse() {
    assertThat(types.update(type("t.missing", null), 1)).isFalse();
    assertThat(types.find("t.missing")).isEmpty();
  }

  @Test
  void deleteRemovesOnceOnly() {
    types.insert(type("t.d", null));
    types.insert(type("t.keep", null));
    assertThat(types.delete("t.d")).isTrue();
    assertThat(types.delete("t.d")).isFalse();
    assertThat(types.findAll()).extracting(EventType::type).containsExactly("t.keep");
  }

  // ---- subscriptions -----------------------------------------------------------------------

  @Test
  void subscriptionRoundTripsPatternFilterRetryAndDeadLetter() {
    JsonNode pattern =
        Json.parse(
            """
        {"type": ["com.example.meter.reading"],
         "data": {"value": [{"numeric": [">", 10.5, "<=", 1000]}], "meter": [{"prefix": "gas-"}]}}""",
            "pattern");
    RetryPolicy retry =
        new RetryPolicy(7, Duration.ofMillis(250), Duration.ofSeconds(30), Duration.ofHours(2));
    Subscription s =
        new Subscription(
            "s-1",
            "gas readings",
            pattern,
            "subject = 'north'",
            "jms:queue:readings",
            retry,
            "jms:queue:dlq",
            T0,
            "key:k1");
    subscriptions.insert(s);

    Subscription read = subscriptions.find("s-1").orElseThrow();
    assertThat(read.name()).isEqualTo("gas readings");
    assertThat(read.pattern()).isEqualTo(pattern);
    assertThat(read.filter()).isEqualTo("subject = 'north'");
    assertThat(read.target()).isEqualTo("jms:queue:readings");
    assertThat(read.retry()).isEqualTo(retry);
    assertThat(read.deadLetter()).isEqualTo("jms:queue:dlq");
    assertThat(read.createdAt()).isCloseTo(T0, within(1, ChronoUnit.MILLIS));
    assertThat(read.owner()).isEqualTo("key:k1");
    assertThat(subscriptions.find("s-2")).isEmpty();
  }

  @Test
  void subscriptionWithoutOptionalFieldsRoundTrips() {
    subscriptions.insert(
        new Subscription(
            "s-0", "all", null, null, "https://host/hook", RetryPolicy.DEFAULT, null, T0));

    Subscription read = subscriptions.find("s-0").orElseThrow();
    assertThat(read.pattern()).isNull();
    assertThat(read.filter()).isNull();
    assertThat(read.deadLetter()).isNull();
    assertThat(read.owner()).isNull();
    assertThat(read.retry()).isEqualTo(RetryPolicy.DEFAULT);
  }

  @Test
  void subscriptionsListInCreationOrderAndDelete() {
    subscriptions.insert(
        new Subscription(
            "b", "second", null, null, "fake:x", RetryPolicy.DEFAULT, null, T0.plusSeconds(1)));
    subscriptions.insert(
        new Subscription("a", "first", null, null, "fake:x", RetryPolicy.DEFAULT, null, T0));
    subscriptions.insert(
        new Subscription(
            "c", "third", null, null, "fake:x", RetryPolicy.DEFAULT, null, T0.plusSeconds(2)));
    assertThat(subscriptions.findAll()).extracting(Subscription::id).containsExactly("a", "b", "c");

    assertThat(subscriptions.delete("b")).isTrue();
    assertThat(subscriptions.delete("b")).isFalse();
    assertThat(subscriptions.findAll()).extracting(Subscription::id).containsExactly("a", "c");
  }

  // ---- inbound channels --------------------------------------------------------------------

  @Test
  void inboundChannelRoundTripsProperties() {
    inbound.insert(
        new InboundChannelDefinition(
            "jms:topic:orders",
            "com.example.order",
            URI.create("urn:legacy:orders"),
            Map.of("subscriptionName", "activity", "concurrency", "4"),
            "api",
            T0));

    List<InboundChannelDefinition> all = inbound.findAll();
    assertThat(all).hasSize(1);
    InboundChannelDefinition read = all.get(0);
    assertThat(read.uri()).isEqualTo("jms:topic:orders");
    assertThat(read.defaultType()).isEqualTo("com.example.order");
    assertThat(read.defaultSource()).isEqualTo(URI.create("urn:legacy:orders"));
    assertThat(read.properties())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("subscriptionName", "activity", "concurrency", "4"));
    assertThat(read.origin()).isEqualTo("api");
    assertThat(read.createdAt()).isCloseTo(T0, within(1, ChronoUnit.MILLIS));
  }

  @Test
  void inboundChannelWithoutDefaultsRoundTripsAndDeletes() {
    inbound.insert(
        new InboundChannelDefinition("sqs:in-b", null, null, null, "api", T0.plusSeconds(1)));
    inbound.insert(new InboundChannelDefinition("sqs:in-a", null, null, Map.of(), "api", T0));

    assertThat(inbound.findAll())
        .extracting(InboundChannelDefinition::uri)
        .containsExactly("sqs:in-a", "sqs:in-b");
    InboundChannelDefinition b = inbound.findAll().get(1);
    assertThat(b.defaultType()).isNull();
    assertThat(b.defaultSource()).isNull();
    assertThat(b.properties()).isEmpty();

    assertThat(inbound.delete("sqs:in-a")).isTrue();
    assertThat(inbound.delete("sqs:in-a")).isFalse();
    assertThat(inbound.findAll())
        .extracting(InboundChannelDefinition::uri)
        .containsExactly("sqs:in-b");
  }
}
