package io.activityservice.events.archive;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.subscription.SubscriptionService;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Archives: creates, lists and deletes them (recorded as configuration changes, so every replica
 * archives by the same patterns), archives matching events through the {@link ArchiveWriter},
 * answers look-back queries, and keeps storage within each archive's retention (hourly by default).
 */
public class ArchiveService implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ArchiveService.class);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

  /** Longest retention: ten years. */
  static final Duration MAX_RETENTION = Duration.ofDays(3650);

  /** Kind of the archive changes in the configuration log. */
  public static final String CHANGE_KIND = "archive";

  /**
   * Settings.
   *
   * @param queueCapacity events waiting to be written; beyond it routing refuses (redelivery / 503)
   * @param maintenanceInterval how often retention and partition upkeep run
   */
  public record Settings(int queueCapacity, Duration maintenanceInterval) {}

  /** A page of archived events and the cursor of the next page ({@code null} at the end). */
  public record EventPage(List<ArchivedEvent> items, String nextCursor) {}

  private final ArchiveRepository repository;
  private final ArchivedEventStore events;
  private final ArchivePartitions partitions;
  private final ArchiveIndex index = new ArchiveIndex();
  private final ArchiveWriter writer;
  private final ConfigChanges changes;
  private final Clock clock;
  private final ScheduledExecutorService maintenance =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("archive-maintenance"));
  private final Settings settings;

  public ArchiveService(
      DataSource dataSource,
      ConfigChanges changes,
      Clock clock,
      MeterRegistry meters,
      Settings settings) {
    this.repository = new ArchiveRepository(JdbcClient.create(dataSource));
    this.events = new ArchivedEventStore(dataSource);
    this.partitions = ArchivePartitions.forDatabase(dataSource);
    this.changes = changes;
    this.clock = clock;
    this.settings = settings;
    this.writer =
        new ArchiveWriter(
            index, events, partitions, repository, clock, settings.queueCapacity(), meters);
    repository.findAll().forEach(index::add);
  }

  /** Starts retention and partition upkeep. */
  public ArchiveService start() {
    long period = settings.maintenanceInterval().toMillis();
    maintenance.scheduleWithFixedDelay(this::maintain, 0, period, TimeUnit.MILLISECONDS);
    return this;
  }

  /** The router's forwarder: archives a routed event in every archive it matches. */
  public CompletableFuture<Void> archive(RoutableEvent event) {
    return writer.archive(event);
  }

  /**
   * Creates an archive.
   *
   * @throws InvalidInputException naming {@code name}, {@code pattern} or {@code retention}
   * @throws ConflictException if the name is taken
   */
  public Archive create(String name, JsonNode pattern, Duration retention) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidInputException(
          "name", "is required: 1-100 letters, digits, '.', '_' or '-', e.g. all-readings");
    }
    SubscriptionService.checkPattern(pattern);
    if (retention == null
        || retention.isNegative()
        || retention.isZero()
        || retention.compareTo(MAX_RETENTION) > 0) {
      throw new InvalidInputException(
          "retention", "is required: an ISO-8601 duration between PT1S and P3650D, e.g. P7D");
    }
    JsonNode cleanPattern = pattern == null || pattern.isNull() ? null : pattern;
    Archive[] created = new Archive[1];
    changes.record(
        CHANGE_KIND,
        name,
        () -> {
          Archive a =
              new Archive(name, repository.nextId(), cleanPattern, retention, clock.millis(), 0, 0);
          if (!repository.insert(a)) {
            throw new ConflictException("name", "archive '" + name + "' already exists");
          }
          created[0] = a;
        });
    partitions.created(created[0].id());
    partitions.ensure(created[0].id(), clock.millis());
    index.add(created[0]);
    return created[0];
  }

  public List<Archive> list() {
    return repository.findAll();
  }

  public Archive get(String name) {
    return repository.find(name).orElseThrow(() -> new NotFoundException("archive", name));
  }

  /** Deletes an archive and its events. */
  public void delete(String name) {
    Archive a = get(name);
    changes.record(
        CHANGE_KIND,
        name,
        () -> {
          if (!repository.delete(name)) {
            throw new NotFoundException("archive", name);
          }
        });
    index.remove(name);
    partitions.deleted(a.id());
  }

  /** Applies a change another replica made: archives by the stored pattern, or stops archiving. */
  public void reload(String name) {
    repository.find(name).ifPresentOrElse(index::add, () -> index.remove(name));
  }

  /**
   * A page of an archive's events, in event-time order.
   *
   * @throws InvalidInputException naming {@code limit} or {@code cursor}
   */
  public EventPage events(String name, ArchivedEventStore.Filter filter, String cursor, int limit) {
    if (limit < 1 || limit > 1000) {
      throw new InvalidInputException("limit", "must be between 1 and 1000");
    }
    Archive a = get(name);
    List<ArchivedEvent> page = events.page(a.id(), filter, decode(cursor), limit + 1);
    String next = null;
    if (page.size() > limit) {
      page = page.subList(0, limit);
      next = encode(page.get(limit - 1).position());
    }
    return new EventPage(List.copyOf(page), next);
  }

  /** Storage partitions of an archive (PostgreSQL; empty on H2). */
  public List<String> partitions(String name) {
    return partitions.partitions(get(name).id());
  }

  ArchivedEventStore store() {
    return events;
  }

  ArchiveRepository repository() {
    return repository;
  }

  /** Runs retention and creates the coming days' partitions; also called by tests. */
  public void maintain() {
    long now = clock.millis();
    for (Archive a : repository.findAll()) {
      try {
        partitions.ensure(a.id(), now);
        partitions.ensure(a.id(), now + Duration.ofDays(1).toMillis());
        int dropped = partitions.dropOlderThan(a.id(), now - a.retention().toMillis());
        if (dropped > 0) {
          long[] totals = events.totals(a.id());
          repository.setCounts(a.id(), totals[0], totals[1]);
        }
      } catch (RuntimeException e) {
        log.warn(
            "archive {} maintenance failed: {}",
            LogSafe.text(a.name()),
            LogSafe.text(e.toString(), 1024));
      }
    }
  }

  static String encode(ArchivedEvent.Position p) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(
            (p.eventTime() + ":" + p.archivedAt() + ":" + p.rowId())
                .getBytes(StandardCharsets.UTF_8));
  }

  static ArchivedEvent.Position decode(String cursor) {
    if (cursor == null || cursor.isBlank()) {
      return null;
    }
    try {
      String[] parts =
          new String(Base64.getUrlDecoder().decode(cursor.trim()), StandardCharsets.UTF_8)
              .split(":", 3);
      return new ArchivedEvent.Position(
          Long.parseLong(parts[0]), Long.parseLong(parts[1]), parts[2]);
    } catch (RuntimeException e) {
      throw new InvalidInputException(
          "cursor", "is not a cursor this service issued; use nextCursor of the previous page");
    }
  }

  @Override
  public void close() {
    maintenance.shutdownNow();
    writer.close();
  }
}
