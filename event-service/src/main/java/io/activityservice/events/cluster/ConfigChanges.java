package io.activityservice.events.cluster;

/**
 * Records configuration changes so that every replica applies them ({@link ConfigChangeLog}); the
 * services that own configuration (subscriptions, types, channels, detectors, rules) write through
 * it.
 */
@FunctionalInterface
public interface ConfigChanges {

  /**
   * Runs {@code write} and records a change of {@code kind}/{@code key} in the same transaction.
   *
   * @return the configuration version of the change (0 when changes are not recorded)
   */
  long record(String kind, String key, Runnable write);

  /** Runs writes without recording them: a single replica in tests. */
  static ConfigChanges unrecorded() {
    return (kind, key, write) -> {
      write.run();
      return 0;
    };
  }
}
