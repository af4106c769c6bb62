package io.activityservice.events.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.transform.CompiledTransform;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
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
 * <p>Patterns that select nothing but exact event types ({@code {"type": ["a", "b"]}}, the
 * commonest shape) are kept in a map from type to subscriptions instead: an exact string match on
 * {@code type} is what Event Ruler would do with them, and a map lookup costs a few nanoseconds and
 * no allocation where a machine walk allocates 1–2 KiB per event (measured with event-ruler 2.1.0).
 * Every other pattern goes to the machine, which is matched against a view of the event with only
 * the members its patterns read ({@link PatternFields}), so the data is parsed only when some
 * pattern reads it.
 *
 * <p>Matching is lock-free; adding and removing subscriptions is serialized.
 */
public class SubscriptionIndex {

  /**
   * A subscription with its compiled parts.
   *
   * @param transform its compiled transformation, or {@code null} for none
   */
  public record Entry(
      Subscription subscription,
      CesqlFilter filter,
      ChannelUri target,
      ChannelUri deadLetter,
      CompiledTransform transform) {

    /** An entry without a transformation. */
    public Entry(
        Subscription subscription, CesqlFilter filter, ChannelUri target, ChannelUri deadLetter) {
      this(subscription, filter, target, deadLetter, null);
    }

    /** The format the subscription asked for, or {@code null} for the transport's default. */
    public DeliveryFormat format() {
      return subscription.format();
    }
  }

  private static final String[] NONE = new String[0];

  private final GenericMachine<String> machine = GenericMachine.<String>builder().build();
  private final PatternFields fields = new PatternFields();
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final Set<String> matchAll = ConcurrentHashMap.newKeySet();

  /**
   * Subscriptions whose pattern is exact event types only, by type (arrays replaced, never
   * changed).
   */
  private final Map<String, String[]> byType = new ConcurrentHashMap<>();

  /** Adds a validated subscription (replacing one with the same id). */
  public synchronized void add(Entry entry) {
    Subscription s = entry.subscription();
    remove(s.id());
    List<String> types = exactTypes(s.pattern());
    if (!hasPattern(s.pattern())) {
      matchAll.add(s.id());
    } else if (types != null) {
      for (String type : types) {
        byType.merge(type, new String[] {s.id()}, SubscriptionIndex::concat);
      }
    } else {
      // Fields first: a match that sees the new rule must also see the members it reads.
      fields.add(s.pattern());
      try {
        machine.addRule(s.id(), Json.write(s.pattern()));
      } catch (IOException e) {
        fields.remove(s.pattern());
        throw new IllegalArgumentException(
            "pattern of subscription " + s.id() + " does not compile", e);
      }
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
    JsonNode pattern = entry.subscription().pattern();
    List<String> types = exactTypes(pattern);
    if (types != null) {
      for (String type : types) {
        byType.computeIfPresent(type, (t, ids) -> without(ids, id));
      }
      return;
    }
    try {
      machine.deleteRule(id, Json.write(pattern));
    } catch (IOException e) {
      throw new IllegalStateException("pattern of subscription " + id + " no longer parses", e);
    }
    fields.remove(pattern);
  }

  /**
   * Subscriptions whose pattern and filter match, each once: the router's match, on a view of the
   * event with only what the patterns read.
   */
  public List<Entry> match(RoutableEvent event) {
    List<String> ids =
        machine.isEmpty() ? List.of() : machine.rulesForJSONEvent(event.view(fields.members()));
    return collect(event.event(), ids);
  }

  /**
   * Subscriptions whose pattern and filter match, each once; {@code json} is the event's whole JSON
   * view.
   */
  public List<Entry> match(io.cloudevents.CloudEvent event, JsonNode json) {
    List<String> ids = machine.isEmpty() ? List.of() : machine.rulesForJSONEvent(json);
    return collect(event, ids);
  }

  /** Whether some pattern reads the event's data, so routing will parse it. */
  public boolean readsData() {
    return fields.readsData();
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

  private List<Entry> collect(io.cloudevents.CloudEvent event, List<String> ids) {
    String[] typed = byType.isEmpty() ? NONE : byType.getOrDefault(event.getType(), NONE);
    boolean all = !matchAll.isEmpty();
    List<Entry> result = new ArrayList<>(typed.length + ids.size() + (all ? matchAll.size() : 0));
    for (String id : typed) {
      add(id, event, result);
    }
    for (int i = 0; i < ids.size(); i++) {
      add(ids.get(i), event, result);
    }
    if (all) {
      for (String id : matchAll) {
        add(id, event, result);
      }
    }
    return result;
  }

  private void add(String id, io.cloudevents.CloudEvent event, List<Entry> out) {
    Entry e = entries.get(id);
    if (e != null && (e.filter() == null || e.filter().test(event))) {
      out.add(e);
    }
  }

  /**
   * The types of a pattern that is exactly {@code {"type": [<strings>]}}: what Event Ruler matches
   * as exact string equality on the event's {@code type}; {@code null} for any other pattern (other
   * fields, {@code $or}, numbers, {@code null}, matchers such as {@code prefix}).
   */
  static List<String> exactTypes(JsonNode pattern) {
    if (!hasPattern(pattern) || pattern.size() != 1) {
      return null;
    }
    JsonNode values = pattern.get("type");
    if (values == null || !values.isArray() || values.isEmpty()) {
      return null;
    }
    List<String> types = new ArrayList<>(values.size());
    for (JsonNode v : values) {
      if (!v.isTextual()) {
        return null;
      }
      if (!types.contains(v.asText())) {
        types.add(v.asText());
      }
    }
    return types;
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static String[] without(String[] ids, String id) {
    Collection<String> rest = new ArrayList<>(Arrays.asList(ids));
    rest.remove(id);
    return rest.isEmpty() ? null : rest.toArray(String[]::new);
  }
}
