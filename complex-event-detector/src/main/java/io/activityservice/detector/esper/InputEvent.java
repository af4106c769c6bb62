package io.activityservice.detector.esper;

import io.activityservice.events.tracing.EventTracing;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The Esper view of one CloudEvent (a Map event): {@code id}, {@code source}, {@code type}, {@code
 * subject}, {@code time} (epoch milliseconds), {@code hopcount}, {@code extensions} and {@code
 * data}. Its own class so that output rows can recognise input events (pattern tags, {@code
 * window(*)}) and read their id and hop count.
 *
 * <p>Read-only: one converted event is shared by every detector of an engine thread, so nothing a
 * detector reaches may change it. Every mutator of this map, of its key set, values and entries,
 * and of the maps and lists inside it ({@code extensions}, {@code data}) throws {@link
 * UnsupportedOperationException}. (Typed arrays inside {@code data}, {@code Double[]}..., are
 * arrays: EPL has no construct that writes an array element.) It is a conversion of the routed
 * event, never a view of its JSON, so no path leads from a detector to what subscribers receive.
 */
final class InputEvent extends AbstractMap<String, Object> {

  private final Map<String, Object> values;

  /** Takes ownership of {@code values}: the caller must not keep or change it afterwards. */
  InputEvent(HashMap<String, Object> values) {
    this.values = Collections.unmodifiableMap(values);
  }

  String id() {
    return (String) values.get("id");
  }

  int hopCount() {
    Object h = values.get("hopcount");
    return h instanceof Integer i ? i : 0;
  }

  /** The event's W3C {@code traceparent} extension, or {@code null}. */
  String traceparent() {
    Object extensions = values.get("extensions");
    Object value = extensions instanceof Map<?, ?> m ? m.get(EventTracing.TRACEPARENT) : null;
    return value == null ? null : value.toString();
  }

  @Override
  public Object get(Object key) {
    return values.get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return values.containsKey(key);
  }

  @Override
  public int size() {
    return values.size();
  }

  @Override
  public Set<Map.Entry<String, Object>> entrySet() {
    return values.entrySet();
  }
}
