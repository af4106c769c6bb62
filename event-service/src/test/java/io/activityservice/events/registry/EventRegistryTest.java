package io.activityservice.events.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.support.TestDatabases;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

class EventRegistryTest {

  private static final String READING = "com.example.meter.reading";
  private static final JsonNode SCHEMA =
      Json.parse(
          """
      {"type": "object",
       "required": ["meter", "value"],
       "properties": {
         "meter": {"type": "string"},
         "value": {"type": "number"},
         "location": {"type": "object", "properties": {"floor": {"type": "integer"}}}
       }}""",
          "schema");

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-21T18:00:00Z"));
  private DataSource ds;
  private EventTypeRepository repository;
  private EventRegistry registry;

  @BeforeEach
  void setUp() {
    ds = TestDatabases.newH2();
    repository = new EventTypeRepository(JdbcClient.create(ds));
    registry = new EventRegistry(repository, UnregisteredTypePolicy.ACCEPT, clock);
    registry.create(READING, "A meter reading", "metering", SCHEMA);
  }

  private static JsonNode data(String json) {
    return Json.parse(json, "data");
  }

  private static InvalidInputException invalid(Runnable r) {
    return catchThrowableOfType(InvalidInputException.class, r::run);
  }

  @Test
  void validDataPasses() {
    assertThatCode(() -> registry.validate(READING, data("{\"meter\":\"m1\",\"value\":3.5}"), true))
        .doesNotThrowAnyException();
  }

  @Test
  void wrongTypeNamesTheDataField() {
    InvalidInputException e =
        invalid(
            () -> registry.validate(READING, data("{\"meter\":\"m1\",\"value\":\"high\"}"), true));
    assertThat(e).isNotNull();
    assertThat(e.errors()).extracting(FieldError::field).containsExactly("data.value");
  }

  @Test
  void missingRequiredPropertyNamesTheProperty() {
    InvalidInputException e =
        invalid(() -> registry.validate(READING, data("{\"value\":3}"), true));
    assertThat(e).isNotNull();
    assertThat(e.errors()).extracting(FieldError::field).containsExactly("data.meter");
  }

  @Test
  void nestedErrorsNameTheNestedPathAndEveryErrorIsReported() {
    InvalidInputException e =
        invalid(
            () ->
                registry.validate(
                    READING, data("{\"value\":\"x\",\"location\":{\"floor\":1.5}}"), true));
    assertThat(e).isNotNull();
    assertThat(e.errors())
        .extracting(FieldError::field)
        .containsExactlyInAnyOrder("data.meter", "data.value", "data.location.floor");
  }

  @Test
  void missingOrNonJsonDataIsRefusedWhenTheTypeHasASchema() {
    assertThat(invalid(() -> registry.validate(READING, null, true)).errors())
        .extracting(FieldError::field)
        .containsExactly("data");
    assertThat(invalid(() -> registry.validate(READING, null, false)).errors())
        .extracting(FieldError::field)
        .containsExactly("data");
  }

  @Test
  void typeWithoutSchemaAcceptsAnyData() {
    registry.create("com.example.free", null, null, null);
    assertThatCode(() -> registry.validate("com.example.free", data("[1,2,3]"), true))
        .doesNotThrowAnyException();
    assertThatCode(() -> registry.validate("com.example.free", null, false))
        .doesNotThrowAnyException();
  }

  @Test
  void invalidSchemaIsRejectedWithFieldSchemaAndNothingIsStored() {
    for (JsonNode bad :
        new JsonNode[] {
          TextNode.valueOf("not a schema"),
          Json.parse("[1]", "s"),
          Json.parse("{\"type\": 12}", "s"),
          Json.parse("{\"minLength\": \"ten\"}", "s")
        }) {
      InvalidInputException e = invalid(() -> registry.create("com.example.bad", null, null, bad));
      assertThat(e).as("schema %s", bad).isNotNull();
      assertThat(e.errors()).extracting(FieldError::field).containsExactly("schema");
    }
    assertThat(repository.find("com.example.bad")).isEmpty();
    assertThat(registry.find("com.example.bad")).isEmpty();

    InvalidInputException onUpdate =
        invalid(() -> registry.update(READING, null, null, Json.parse("{\"type\": 12}", "s")));
    assertThat(onUpdate.errors()).extracting(FieldError::field).containsExactly("schema");
    assertThat(registry.get(READING).version()).isEqualTo(1);
    assertThat(repository.find(READING).orElseThrow().schema()).isEqualTo(SCHEMA);
  }

  @Test
  void invalidTypeNameIsRejected() {
    for (String bad : new String[] {null, "", "has space", "x".repeat(256)}) {
      assertThat(invalid(() -> registry.create(bad, null, null, null)).errors())
          .extracting(FieldError::field)
          .containsExactly("type");
    }
  }

  @Test
  void duplicateCreateIsAConflictOnType() {
    assertThatThrownBy(() -> registry.create(READING, "again", null, null))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.field()).isEqualTo("type"));
    assertThat(registry.get(READING).description()).isEqualTo("A meter reading");
  }

  @Test
  void rejectPolicyNamesTypeForUnregisteredTypes() {
    EventRegistry strict = new EventRegistry(repository, UnregisteredTypePolicy.REJECT, clock);
    InvalidInputException e =
        invalid(() -> strict.validate("com.example.unknown", data("{}"), true));
    assertThat(e.errors()).extracting(FieldError::field).containsExactly("type");
    assertThat(e.getMessage()).contains("com.example.unknown");
    // Registered types still pass under REJECT; ACCEPT lets unknown types through.
    assertThatCode(() -> strict.validate(READING, data("{\"meter\":\"m\",\"value\":1}"), true))
        .doesNotThrowAnyException();
    assertThatCode(() -> registry.validate("com.example.unknown", data("{}"), true))
        .doesNotThrowAnyException();
  }

  @Test
  void updateIncrementsVersionKeepsCreatedAtAndAppliesTheNewSchema() {
    Instant created = clock.instant();
    clock.set(created.plusSeconds(60));
    EventType v2 = registry.update(READING, "v2", "team-2", null);
    clock.set(created.plusSeconds(120));
    EventType v3 =
        registry.update(
            READING,
            "v3",
            "team-3",
            Json.parse("{\"type\":\"object\",\"required\":[\"id\"]}", "schema"));

    assertThat(v2.version()).isEqualTo(2);
    assertThat(v3.version()).isEqualTo(3);
    assertThat(v3.createdAt().toInstant()).isEqualTo(created);
    assertThat(v3.updatedAt().toInstant()).isEqualTo(created.plusSeconds(120));
    assertThat(repository.find(READING).orElseThrow().version()).isEqualTo(3);
    assertThat(registry.get(READING).description()).isEqualTo("v3");
    assertThat(invalid(() -> registry.validate(READING, data("{}"), true)).errors())
        .extracting(FieldError::field)
        .containsExactly("data.id");
  }

  @Test
  void staleRegistryInstanceGetsAConflictOnUpdate() {
    EventRegistry other = new EventRegistry(repository, UnregisteredTypePolicy.ACCEPT, clock);
    registry.update(READING, "changed by the first instance", null, SCHEMA);

    assertThatThrownBy(() -> other.update(READING, "stale", null, SCHEMA))
        .isInstanceOf(ConflictException.class);
    assertThat(repository.find(READING).orElseThrow().description())
        .isEqualTo("changed by the first instance");
  }

  @Test
  void updateAndDeleteOfUnknownTypeAreNotFound() {
    assertThatThrownBy(() -> registry.update("nope", null, null, null))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> registry.delete("nope")).isInstanceOf(NotFoundException.class);
  }

  @Test
  void deleteForgetsTheTypeAndItsSchema() {
    registry.delete(READING);
    assertThat(registry.find(READING)).isEmpty();
    assertThat(repository.find(READING)).isEmpty();
    assertThatCode(() -> registry.validate(READING, data("{\"value\":\"x\"}"), true))
        .doesNotThrowAnyException();
  }

  @Test
  void aNewRegistryOnTheSameDatabaseSeesTypesAndSchemas() {
    registry.create("com.example.order", "Orders", "shop", null);
    registry.update("com.example.order", "Orders v2", "shop", null);

    EventRegistry restarted =
        new EventRegistry(
            new EventTypeRepository(JdbcClient.create(ds)),
            UnregisteredTypePolicy.REJECT,
            Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    assertThat(restarted.typeNames()).containsExactlyInAnyOrder(READING, "com.example.order");
    assertThat(restarted.get("com.example.order").version()).isEqualTo(2);
    assertThat(restarted.get("com.example.order").description()).isEqualTo("Orders v2");
    assertThat(restarted.list("ORDERS"))
        .extracting(EventType::type)
        .containsExactly("com.example.order");
    assertThat(
            invalid(() -> restarted.validate(READING, data("{\"meter\":1,\"value\":2}"), true))
                .errors())
        .extracting(FieldError::field)
        .containsExactly("data.meter");
  }

  /** A clock tests move by hand. */
  static final class MutableClock extends Clock {
    private volatile Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void set(Instant instant) {
      now = instant;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
