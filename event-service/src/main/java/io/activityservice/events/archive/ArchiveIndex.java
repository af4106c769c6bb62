package io.activityservice.events.archive;

import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.subscription.PatternFields;
import io.activityservice.events.subscription.SubscriptionIndex;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.event.ruler.GenericMachine;

/**
 * Which archives an event belongs in: one Event Ruler machine over every archive's pattern, like
 * subscriptions, matched against a view of the event with only the members the patterns read.
 */
final class ArchiveIndex {

  private final GenericMachine<String> machine = GenericMachine.<String>builder().build();
  private final PatternFields fields = new PatternFields();
  private final Map<String, Archive> archives = new ConcurrentHashMap<>();
  private final Set<String> matchAll = ConcurrentHashMap.newKeySet();

  synchronized void add(Archive a) {
    remove(a.name());
    if (SubscriptionIndex.hasPattern(a.pattern())) {
      fields.add(a.pattern());
      try {
        machine.addRule(a.name(), Json.write(a.pattern()));
      } catch (IOException e) {
        fields.remove(a.pattern());
        throw new IllegalArgumentException(
            "pattern of archive " + a.name() + " does not compile", e);
      }
    } else {
      matchAll.add(a.name());
    }
    archives.put(a.name(), a);
  }

  synchronized void remove(String name) {
    Archive a = archives.remove(name);
    if (a == null) {
      return;
    }
    if (!matchAll.remove(name)) {
      try {
        machine.deleteRule(name, Json.write(a.pattern()));
      } catch (IOException e) {
        throw new IllegalStateException("pattern of archive " + name + " no longer parses", e);
      }
      fields.remove(a.pattern());
    }
  }

  boolean isEmpty() {
    return archives.isEmpty();
  }

  Archive get(String name) {
    return archives.get(name);
  }

  List<Archive> match(RoutableEvent event) {
    List<String> names =
        machine.isEmpty() ? List.of() : machine.rulesForJSONEvent(event.view(fields.members()));
    List<Archive> out = new ArrayList<>(names.size() + matchAll.size());
    for (String n : names) {
      Archive a = archives.get(n);
      if (a != null) {
        out.add(a);
      }
    }
    for (String n : matchAll) {
      Archive a = archives.get(n);
      if (a != null) {
        out.add(a);
      }
    }
    return out;
  }
}
