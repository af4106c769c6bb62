package io.activityservice.events.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaId;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.events.problem.NotFoundException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The event registry: registered types with optional JSON Schemas for their {@code data}. Schemas
 * are compiled once when a type is written and kept in memory, so validation on ingest costs one
 * map lookup plus the validator itself.
 */
public class EventRegistry {

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(EventRegistry.class);

  /**
   * CloudEvents recommends reverse-DNS type names; we only forbid blanks and control characters.
   */
  private static final Pattern TYPE_NAME = Pattern.compile("[^\\s\\p{Cntrl}]{1,255}");

  private final EventTypeRepository repository;
  private final UnregisteredTypePolicy policy;
  private final Clock clock;

  /**
   * Loads nothing but the bundled meta-schemas ({@link SchemaReferences#LOADER}): schemas fetch
   * nothing.
   */
  private final JsonSchemaFactory schemaFactory =
      JsonSchemaFactory.getInstance(
          SpecVersion.VersionFlag.V202012,
          builder -> builder.schemaLoaders(loaders -> loaders.add(SchemaReferences.LOADER)));

  private final Map<String, Compiled> cache = new ConcurrentHashMap<>();

  /**
   * Counts changes of {@link #cache} (types registered, changed, removed), for caches of per-type
   * decisions.
   */
  private final java.util.concurrent.atomic.AtomicLong version =
      new java.util.concurrent.atomic.AtomicLong();

  private final ConfigChanges changes;

  /** The 2020-12 meta-schema, bundled with the validator: user schemas are checked against it. */
  private final JsonSchema metaSchema =
      schemaFactory.getSchema(SchemaLocation.of(SchemaId.V202012));

  /**
   * A type with its compiled schema; {@code broken} says why a stored schema cannot be enforced
   * (else null).
   */
  private record Compiled(EventType type, JsonSchema schema, String broken) {
    Compiled(EventType type, JsonSchema schema) {
      this(type, schema, null);
    }
  }

  public EventRegistry(EventTypeRepository repository, UnregisteredTypePolicy policy, Clock clock) {
    this(repository, policy, clock, ConfigChanges.unrecorded());
  }

  /**
   * @param changes records each change so that every replica applies it ({@link #reload})
   */
  public EventRegistry(
      EventTypeRepository repository,
      UnregisteredTypePolicy policy,
      Clock clock,
      ConfigChanges changes) {
    this.repository = repository;
    this.policy = policy;
    this.clock = clock;
    this.changes = changes;
    repository.findAll().forEach(t -> cache.put(t.type(), compileStored(t)));
  }

  /**
   * A stored type's schema, compiled; one that no longer compiles (e.g. stored before references
   * were confined to the registry) is kept listed but refuses events until an author fixes it,
   * rather than stopping the service or being silently not enforced.
   */
  private Compiled compileStored(EventType t) {
    try {
      return compile(t);
    } catch (InvalidInputException e) {
      log.error(
          "event type {}: its stored schema is not enforced and its events are refused until it is fixed"
              + " (PUT /api/v1/event-types/{}): {}",
          LogSafe.text(t.type()),
          LogSafe.text(t.type()),
          LogSafe.text(e.getMessage(), 1024));
      return new Compiled(t, null, e.getMessage());
    }
  }

  /** Kind of the event-type changes in the configuration log. */
  public static final String CHANGE_KIND = "event-type";

  /**
   * Applies a change another replica made: re-reads the type and recompiles its schema, or forgets
   * it.
   */
  public void reload(String type) {
    Optional<EventType> stored = repository.find(type);
    if (stored.isEmpty()) {
      cache.remove(type);
      version.incrementAndGet();
    } else {
      cache.put(type, compileStored(stored.get()));
      version.incrementAndGet();
    }
  }

  public List<EventType> list(String query) {
    return query == null || query.isBlank()
        ? repository.findAll()
        : repository.search(query.trim());
  }

  public EventType get(String type) {
    return find(type).orElseThrow(() -> new NotFoundException("event type", type));
  }

  public Optional<EventType> find(String type) {
    Compiled c = cache.get(type);
    return c != null ? Optional.of(c.type()) : Optional.empty();
  }

  /** Registers a new type. */
  public EventType create(String type, String description, String owner, JsonNode schema) {
    checkName(type);
    OffsetDateTime now = OffsetDateTime.now(clock);
    EventType t = new EventType(type, description, owner, schema, 1, now, now);
    Compiled compiled = compile(t);
    changes.record(
        CHANGE_KIND,
        type,
        () -> {
          if (!repository.insert(t)) {
            throw new ConflictException(
                "type", "event type '" + type + "' is already registered; use PUT to change it");
          }
        });
    cache.put(type, compiled);
    version.incrementAndGet();
    return t;
  }

  /** Replaces description, owner and schema; bumps the version. */
  public EventType update(String type, String description, String owner, JsonNode schema) {
    EventType old = get(type);
    EventType t =
        new EventType(
            type,
            description,
            owner,
            schema,
            old.version() + 1,
            old.createdAt(),
            OffsetDateTime.now(clock));
    Compiled compiled = compile(t);
    changes.record(
        CHANGE_KIND,
        type,
        () -> {
          if (!repository.update(t, old.version())) {
            throw new ConflictException(
                "type", "event type '" + type + "' changed concurrently; retry");
          }
        });
    cache.put(type, compiled);
    version.incrementAndGet();
    return t;
  }

  public void delete(String type) {
    changes.record(
        CHANGE_KIND,
        type,
        () -> {
          if (!repository.delete(type)) {
            throw new NotFoundException("event type", type);
          }
        });
    cache.remove(type);
    version.incrementAndGet();
  }

  /** Names of all registered types (for tools such as detectors that need typed inputs). */
  public Set<String> typeNames() {
    return Set.copyOf(cache.keySet());
  }

  /**
   * Checks an event's type against the policy and its {@code data} against the type's schema.
   *
   * @param type the event's CloudEvents type
   * @param data the parsed JSON data, or {@code null} if the event has no (JSON) data
   * @throws InvalidInputException naming {@code type} or {@code data.<path>}
   */
  public void validate(String type, JsonNode data, boolean dataIsJson) {
    validateData(type, () -> data, dataIsJson);
  }

  /** Whether events of this type are checked against a schema (so ingest will read their data). */
  public boolean hasSchema(String type) {
    Compiled c = cache.get(type);
    return c != null && c.schema() != null;
  }

  /**
   * Changes whenever a type is registered, changed or removed (on this replica or applied from
   * another).
   */
  public long version() {
    return version.get();
  }

  /** Whether a type is registered; no allocation (the routing metrics ask per event). */
  public boolean isRegistered(String type) {
    return type != null && cache.containsKey(type);
  }

  /**
   * Like {@link #validate(String, JsonNode, boolean)}, with the data read only if the type has a
   * schema.
   *
   * @param data the parsed JSON data, or {@code null} if the event has no (JSON) data; not called
   *     for types without a schema
   */
  public void validateData(
      String type, java.util.function.Supplier<JsonNode> data, boolean dataIsJson) {
    Compiled c = cache.get(type);
    if (c == null) {
      if (policy == UnregisteredTypePolicy.REJECT) {
        throw new InvalidInputException(
            "type",
            "event type '"
                + type
                + "' is not registered (policy: reject); register it with POST /api/v1/event-types");
      }
      return;
    }
    if (c.broken() != null) {
      throw new InvalidInputException(
          "type",
          "event type '"
              + type
              + "' has a stored schema that cannot be"
              + " enforced ("
              + c.broken()
              + "); an author must fix it with PUT /api/v1/event-types/"
              + type);
    }
    if (c.schema() == null) {
      return;
    }
    if (!dataIsJson) {
      throw new InvalidInputException(
          "data", "type '" + type + "' has a JSON Schema, so data must be JSON");
    }
    JsonNode tree = data.get();
    Set<ValidationMessage> messages;
    try {
      messages =
          c.schema()
              .validate(
                  tree == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : tree);
    } catch (RuntimeException e) {
      // E.g. a reference the loader refused (nothing is fetched): the data cannot be shown valid.
      throw new InvalidInputException(
          "data", "could not be checked against the schema of type '" + type + "'");
    }
    if (!messages.isEmpty()) {
      List<FieldError> errors = new ArrayList<>();
      for (ValidationMessage m : messages) {
        errors.add(new FieldError(dataPath(m), m.getMessage()));
      }
      throw new InvalidInputException(errors);
    }
  }

  private Compiled compile(EventType t) {
    if (t.schema() == null || t.schema().isNull()) {
      return new Compiled(t, null);
    }
    if (!t.schema().isObject() && !t.schema().isBoolean()) {
      throw new InvalidInputException("schema", "must be a JSON Schema object");
    }
    Set<ValidationMessage> problems = metaSchema.validate(t.schema());
    if (!problems.isEmpty()) {
      ValidationMessage first = problems.iterator().next();
      throw new InvalidInputException(
          "schema", "is not a valid JSON Schema (2020-12): " + first.getMessage());
    }
    SchemaReferences.check(t.schema());
    try {
      JsonSchema schema = schemaFactory.getSchema(t.schema());
      schema.initializeValidators();
      return new Compiled(t, schema);
    } catch (RuntimeException e) {
      throw new InvalidInputException("schema", "is not a valid JSON Schema: " + e.getMessage());
    }
  }

  private static void checkName(String type) {
    if (type == null || !TYPE_NAME.matcher(type).matches()) {
      throw new InvalidInputException(
          "type", "is required: 1-255 characters without spaces, e.g. com.example.meter.reading");
    }
  }

  /** Turns the validator's instance location ({@code $.value}) into {@code data.value}. */
  private static String dataPath(ValidationMessage m) {
    String location = String.valueOf(m.getInstanceLocation());
    String path = location.startsWith("$") ? location.substring(1) : location;
    if (m.getProperty() != null && "required".equals(m.getType())) {
      path = path + "." + m.getProperty();
    }
    return "data"
        + (path.isEmpty() || path.startsWith(".") || path.startsWith("[") ? path : "." + path);
  }
}
