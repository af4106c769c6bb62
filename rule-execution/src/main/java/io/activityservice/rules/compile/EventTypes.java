package io.activityservice.rules.compile;

import java.util.Set;
import java.util.TreeSet;

/**
 * The event types a rule set can match, derived from its DRL: the {@code type == "..."} (or {@code
 * type in (...)}) constraints of its {@code Event} patterns.
 *
 * @param all true when some pattern can match any type (no type constraint), so the rule set gets
 *     every event
 * @param types the types it can match when {@code all} is false
 */
public record EventTypes(boolean all, Set<String> types) {

  public static final EventTypes ALL = new EventTypes(true, Set.of());

  public EventTypes {
    types = all ? Set.of() : Set.copyOf(new TreeSet<>(types));
  }

  public static EventTypes of(Set<String> types) {
    return new EventTypes(false, types);
  }

  /** Whether an event of this type can match. */
  public boolean accepts(String type) {
    return all || types.contains(type);
  }
}
