package io.activityservice.events.registry;

/** What ingest does with an event whose {@code type} is not in the registry. */
public enum UnregisteredTypePolicy {
  /** Route it like any other event (default). */
  ACCEPT,
  /** Refuse it with a 400 naming the {@code type} field. */
  REJECT
}
