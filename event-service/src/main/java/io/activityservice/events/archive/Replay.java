package io.activityservice.events.archive;

import java.util.List;

/**
 * A replay of an archive's events with event time in {@code [from, to)} into chosen destinations.
 *
 * @param name unique name; replayed events carry it in the extension {@code replayname}
 * @param archive the archive's name
 * @param from start of the event-time range (epoch ms, inclusive)
 * @param to end of the event-time range (epoch ms, exclusive)
 * @param destinations where the events go
 * @param state RUNNING, COMPLETED, CANCELLED or FAILED
 * @param total events in the range when the replay started
 * @param replayed events replayed so far
 * @param position the last event replayed, or {@code null}
 * @param error why it failed, or {@code null}
 * @param createdAt creation time (epoch ms)
 * @param startedAt when a replica started it, or {@code null}
 * @param finishedAt when it ended, or {@code null}
 */
public record Replay(
    String name,
    String archive,
    long from,
    long to,
    Destinations destinations,
    State state,
    long total,
    long replayed,
    ArchivedEvent.Position position,
    String error,
    long createdAt,
    Long startedAt,
    Long finishedAt) {

  /** Lifecycle of a replay. */
  public enum State {
    RUNNING,
    COMPLETED,
    CANCELLED,
    FAILED
  }

  /**
   * Destinations of a replay; {@code null} lists mean all of that kind, empty lists none.
   *
   * @param subscriptions subscription ids
   * @param detectors detector names
   * @param rules rule-set names
   */
  public record Destinations(
      List<String> subscriptions, List<String> detectors, List<String> rules) {
    public Destinations {
      subscriptions = subscriptions == null ? null : List.copyOf(subscriptions);
      detectors = detectors == null ? null : List.copyOf(detectors);
      rules = rules == null ? null : List.copyOf(rules);
    }

    /** Every subscription, detector and rule set. */
    public static Destinations all() {
      return new Destinations(null, null, null);
    }
  }

  /** Progress between 0 and 1. */
  public double progress() {
    return total == 0 ? (state == State.RUNNING ? 0 : 1) : Math.min(1.0, (double) replayed / total);
  }
}
