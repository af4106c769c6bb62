package io.activityservice.events.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.ChannelUri;
import io.activityservice.events.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.event.ruler.GenericMachine;

/**
 * In-memory index of active subscriptions. Patterns live in one Event Ruler machine, whose matching
 * cost depends on the event, not on the number of subscriptions; CESQL filters run only on the
 * subscriptions whose pattern matched.
 *
 * <p>Matching is lock-free; adding and removing subscriptions is serialized.
 */
public class SubscriptionIndex {

  /** A subscription with its compiled parts. */
  public record Entry(Subscription subscription, CesqlFilter filter, ChannelUri target, ChannelUri deadLetter) {
  }

  private final GenericMachine<String> machine = new GenericMachine<>();
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final Set<String> matchAll = ConcurrentHashMap.newKeySet();

  /** Adds a validated subscription. */
  public synchronized void add(Entry entry) {
    Subscription s = entry.subscription();
    if (hasPattern(s.pattern())) {
      try {
        machine.addRule(s.id(), Json.write(s.pattern()));
      } catch (IOException e) {
        throw new IllegalArgumentException("pattern of subscription " + s.id() + " does not compile", e);
      }
    } else {
      matchAll.add(s.id());
    }
    entries.put(s.id(), entry);
  }

  /** Removes a subscription; no-op if absent. */
  public synchronized void remove(String id) {
    Entry entry = entries.remove(id);
    if (entry == null) {
      return;
    }
    if (matchAll.remove(id)) {
      return;
    }
    try {
      machine.deleteRule(id, Json.write(entry.subscription().pattern()));
    } catch (IOException e) {
      throw new IllegalStateException("pattern of subscription " + id + " no longer parses", e);
    }
  }

  /** Subscriptions whose pattern and filter match, each once. */
  public List<Entry> match(io.cloudevents.CloudEvent event, JsonNode json) {
    List<String> ids = machine.isEmpty() ? List.of() : machine.rulesForJSONEvent(json);
    List<Entry> result = new ArrayList<>(ids.size() + matchAll.size());
    collect(ids, event, result);
    collect(matchAll, event, result);
    return result;
  }

  public int size() {
    return entries.size();
  }

  public Entry get(String id) {
    return entries.get(id);
  }

  /** Whether a pattern constrains anything (null and {} match every event). */
  public static boolean hasPattern(JsonNode pattern) {
    return pattern != null && pattern.isObject() && !pattern.isEmpty();
  }

  private void collect(Collection<String> ids, io.cloudevents.CloudEvent event, List<Entry> out) {
    for (String id : ids) {
      Entry e = entries.get(id);
      if (e != null && (e.filter() == null || e.filter().test(event))) {
        out.add(e);
      }
    }
  }
}
