package io.activityservice.events.archive;

import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.tracing.EventTracing;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Replays: a replay is stored as a job ({@code replay} table) and run by whichever replica claims
 * it first (one at a time, resumed by another if that replica dies). See {@link ReplayRunner}.
 */
public class ReplayService implements AutoCloseable {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

  /**
   * Settings.
   *
   * @param lease how long a replica holds a replay between progress records
   * @param poll how often idle replicas look for replays to run
   * @param pageSize archived events read per query
   * @param maxInFlight replayed events handed over and not yet durable
   */
  public record Settings(Duration lease, Duration poll, int pageSize, int maxInFlight) {}

  private final ReplayRepository replays;
  private final ArchiveService archives;
  private final ReplayRunner runner;
  private final Clock clock;

  public ReplayService(
      DataSource dataSource,
      ArchiveService archives,
      ReplayTarget target,
      Clock clock,
      String replicaId,
      Settings settings) {
    this.replays = new ReplayRepository(dataSource);
    this.archives = archives;
    this.clock = clock;
    this.runner =
        new ReplayRunner(
            replays,
            archives.repository(),
            archives.store(),
            target,
            clock,
            replicaId,
            settings.lease(),
            settings.poll(),
            settings.pageSize(),
            settings.maxInFlight());
  }

  /** Traces replayed events with {@code tracing} (set once, before {@link #start()}). */
  public ReplayService tracing(EventTracing tracing) {
    runner.tracing(tracing);
    return this;
  }

  public ReplayService start() {
    runner.start();
    return this;
  }

  /**
   * Starts a replay.
   *
   * @throws InvalidInputException naming {@code name}, {@code archive}, {@code from} or {@code to}
   * @throws ConflictException if the name is taken
   */
  public Replay create(
      String name, String archive, Long from, Long to, Replay.Destinations destinations) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidInputException(
          "name", "is required: 1-100 letters, digits, '.', '_' or '-', e.g. fix-2026-11-20");
    }
    if (archive == null || archive.isBlank()) {
      throw new InvalidInputException("archive", "is required: the name of an archive");
    }
    if (from == null) {
      throw new InvalidInputException(
          "from", "is required: an RFC 3339 time, e.g. 2026-11-20T00:00:00Z");
    }
    if (to == null) {
      throw new InvalidInputException("to", "is required: an RFC 3339 time after from");
    }
    if (to <= from) {
      throw new InvalidInputException("to", "must be after from");
    }
    Archive a;
    try {
      a = archives.get(archive);
    } catch (NotFoundException e) {
      throw new InvalidInputException("archive", "there is no archive '" + archive + "'");
    }
    Replay r =
        new Replay(
            name,
            archive,
            from,
            to,
            destinations == null ? Replay.Destinations.all() : destinations,
            Replay.State.RUNNING,
            0,
            0,
            null,
            null,
            clock.millis(),
            null,
            null);
    long total = archives.store().count(a.id(), from, to);
    if (!replays.insert(r, total)) {
      throw new ConflictException(
          "name", "replay '" + name + "' already exists; pick another name");
    }
    runner.nudge();
    return get(name);
  }

  public Replay get(String name) {
    return replays.find(name).orElseThrow(() -> new NotFoundException("replay", name));
  }

  public List<Replay> list() {
    return replays.findAll();
  }

  /** Cancels a running replay; a replay that already ended is left as it is. */
  public Replay cancel(String name) {
    get(name);
    replays.cancel(name, clock.millis());
    return get(name);
  }

  @Override
  public void close() {
    runner.close();
  }
}
