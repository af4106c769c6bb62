package io.activityservice.events.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.ChannelUri;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.event.ruler.JsonRuleCompiler;

/**
 * Creates, lists and deletes subscriptions. Everything is validated before anything is stored,
 * and a stored subscription is applied to routing at once.
 */
public class SubscriptionService {

  private static final Logger log = LoggerFactory.getLogger(SubscriptionService.class);

  private final SubscriptionRepository repository;
  private final SubscriptionIndex index;
  private final ChannelRegistry channels;
  private final Clock clock;
  private final Consumer<String> onDeleted;
  private final ConfigChanges changes;

  public SubscriptionService(SubscriptionRepository repository, SubscriptionIndex index,
                             ChannelRegistry channels, Clock clock) {
    this(repository, index, channels, clock, id -> { }, ConfigChanges.unrecorded());
  }

  /**
   * @param onDeleted told the id of each deleted subscription (e.g. to drop its parked deliveries)
   * @param changes   records each change so that every replica applies it ({@link #reload})
   */
  public SubscriptionService(SubscriptionRepository repository, SubscriptionIndex index,
                             ChannelRegistry channels, Clock clock, Consumer<String> onDeleted,
                             ConfigChanges changes) {
    this.repository = repository;
    this.index = index;
    this.channels = channels;
    this.clock = clock;
    this.onDeleted = onDeleted;
    this.changes = changes;
  }

  /** Kind of the subscription changes in the configuration log. */
  public static final String CHANGE_KIND = "subscription";

  /**
   * Applies a change another replica made: indexes the stored subscription, or drops it from the index if it is
   * gone. Subscriptions are immutable, so one already indexed stays as it is.
   */
  public void reload(String id) {
    java.util.Optional<Subscription> stored = repository.find(id);
    if (stored.isEmpty()) {
      index.remove(id);
      return;
    }
    if (index.get(id) != null) {
      return;
    }
    try {
      index.add(compile(stored.get()));
    } catch (InvalidInputException e) {
      log.error("subscription {} ({}) is not active on this replica: {}", id, stored.get().name(), e.getMessage());
    }
  }

  /** Indexes every stored subscription; called once at start-up. */
  public void loadAll() {
    int loaded = 0;
    for (Subscription s : repository.findAll()) {
      try {
        index.add(compile(s));
        loaded++;
      } catch (InvalidInputException e) {
        // E.g. its adapter was disabled in configuration: keep it stored, report it, route the rest.
        log.error("subscription {} ({}) is not active: {}", s.id(), s.name(), e.getMessage());
      }
    }
    log.info("{} subscriptions active", loaded);
  }

  /**
   * Validates and stores a subscription.
   *
   * @throws InvalidInputException naming the first offending field
   */
  public Subscription create(String name, JsonNode pattern, String filter, String target,
                             RetryPolicy retry, String deadLetter) {
    return create(name, pattern, filter, target, retry, deadLetter, null);
  }

  /**
   * Validates and stores a subscription owned by {@code owner} (the identity that created it; may be null).
   *
   * @throws InvalidInputException naming the first offending field
   */
  public Subscription create(String name, JsonNode pattern, String filter, String target,
                             RetryPolicy retry, String deadLetter, String owner) {
    if (name == null || name.isBlank() || name.length() > 255) {
      throw new InvalidInputException("name", "is required (1-255 characters)");
    }
    String cleanFilter = filter == null || filter.isBlank() ? null : filter.trim();
    String cleanDeadLetter = deadLetter == null || deadLetter.isBlank() ? null : deadLetter.trim();
    Subscription s = new Subscription(UUID.randomUUID().toString(), name.trim(), pattern, cleanFilter,
        target, retry == null ? RetryPolicy.DEFAULT : retry, cleanDeadLetter,
        OffsetDateTime.now(clock), owner);
    SubscriptionIndex.Entry entry = compile(s);
    changes.record(CHANGE_KIND, s.id(), () -> repository.insert(s));
    index.add(entry);
    return s;
  }

  public List<Subscription> list() {
    return repository.findAll();
  }

  public Subscription get(String id) {
    return repository.find(id).orElseThrow(() -> new NotFoundException("subscription", id));
  }

  public void delete(String id) {
    changes.record(CHANGE_KIND, id, () -> {
      if (!repository.delete(id)) {
        throw new NotFoundException("subscription", id);
      }
    });
    index.remove(id);
    onDeleted.accept(id);
  }

  private SubscriptionIndex.Entry compile(Subscription s) {
    checkPattern(s.pattern());
    CesqlFilter filter = s.filter() == null ? null : CesqlFilter.compile(s.filter());
    if (s.target() == null || s.target().isBlank()) {
      throw new InvalidInputException("target", "is required: a channel URI such as https://host/hook or jms:queue:orders");
    }
    ChannelUri target = channels.parse("target", s.target());
    ChannelUri deadLetter = s.deadLetter() == null ? null : channels.parse("deadLetter", s.deadLetter());
    return new SubscriptionIndex.Entry(s, filter, target, deadLetter);
  }

  /**
   * Checks an event pattern (the subscription pattern language, also used by archives).
   *
   * @throws InvalidInputException naming {@code pattern}
   */
  public static void checkPattern(JsonNode pattern) {
    if (pattern == null || pattern.isNull()) {
      return;
    }
    if (!pattern.isObject()) {
      throw new InvalidInputException("pattern", "must be a JSON object, e.g. {\"type\": [\"com.example.meter.reading\"]}");
    }
    if (!SubscriptionIndex.hasPattern(pattern)) {
      return;
    }
    String error = JsonRuleCompiler.check(Json.write(pattern));
    if (error != null) {
      int cut = error.indexOf("\n at [Source");
      throw new InvalidInputException("pattern",
          "is not a valid event pattern: " + (cut < 0 ? error : error.substring(0, cut)).trim());
    }
  }
}
