package io.activityservice.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.Set;

/**
 * Read-only views of an event's JSON data, as rules see it ({@link Event#getData()}): objects are
 * {@link Map}s, arrays {@link java.util.List}s, strings, numbers ({@code Integer}, {@code Long},
 * {@code Double}...) and booleans are themselves. Nothing is copied: a view reads the routed
 * event's tree on each access. Every mutator, of a view, of its key set, values, entries and
 * iterators, throws {@link UnsupportedOperationException}, and no method returns a node of the
 * tree, so nothing a rule reaches can change the event that subscribers receive.
 */
final class JsonView {

  private JsonView() {}

  /** The value of a node: a view for objects and arrays, a String, Number or Boolean, or null. */
  static Object of(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    if (node instanceof ObjectNode o) {
      return new ObjectView(o);
    }
    if (node instanceof ArrayNode a) {
      return new ArrayView(a);
    }
    if (node.isTextual()) {
      return node.textValue();
    }
    if (node.isNumber()) {
      return node.numberValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    // binary and POJO nodes do not come out of JSON parsing; never hand out the object they hold
    return node.asText();
  }

  /** A JSON object as a read-only map. */
  static final class ObjectView extends AbstractMap<String, Object> {
    private final ObjectNode node;
    private Set<Map.Entry<String, Object>> entries;

    ObjectView(ObjectNode node) {
      this.node = node;
    }

    @Override
    public Object get(Object key) {
      return key instanceof String s ? of(node.get(s)) : null;
    }

    @Override
    public boolean containsKey(Object key) {
      return key instanceof String s && node.has(s);
    }

    @Override
    public int size() {
      return node.size();
    }

    @Override
    public boolean isEmpty() {
      return node.isEmpty();
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
      Set<Map.Entry<String, Object>> e = entries;
      if (e == null) {
        e =
            new AbstractSet<>() {
              @Override
              public Iterator<Map.Entry<String, Object>> iterator() {
                // Wraps the tree's iterator without delegating remove(): the tree's own iterator
                // would remove fields.
                Iterator<Map.Entry<String, JsonNode>> fields = node.properties().iterator();
                return new Iterator<>() {
                  @Override
                  public boolean hasNext() {
                    return fields.hasNext();
                  }

                  @Override
                  public Map.Entry<String, Object> next() {
                    Map.Entry<String, JsonNode> f = fields.next();
                    return new AbstractMap.SimpleImmutableEntry<>(f.getKey(), of(f.getValue()));
                  }
                };
              }

              @Override
              public int size() {
                return node.size();
              }
            };
        entries = e;
      }
      return e;
    }
  }

  /** A JSON array as a read-only list. */
  static final class ArrayView extends AbstractList<Object> implements RandomAccess {
    private final ArrayNode node;

    ArrayView(ArrayNode node) {
      this.node = node;
    }

    @Override
    public Object get(int index) {
      Objects.checkIndex(index, node.size());
      return of(node.get(index));
    }

    @Override
    public int size() {
      return node.size();
    }

    @Override
    public Iterator<Object> iterator() {
      Iterator<JsonNode> elements = node.elements();
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return elements.hasNext();
        }

        @Override
        public Object next() {
          if (!elements.hasNext()) {
            throw new NoSuchElementException();
          }
          return of(elements.next());
        }
      };
    }
  }
}
