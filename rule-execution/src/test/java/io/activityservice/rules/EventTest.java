package io.activityservice.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.events.json.Json;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class EventTest {

  final Event e =
      TestEvents.event(
          "e1",
          "t",
          1_000L,
          """
      {"value": 95, "text": "42.5", "meter": {"id": "m1", "tags": ["a", "b"]}, "none": null, "flag": true}""");

  @Test
  void numberReadsNumbersAndNumericStringsElseNaN() {
    assertThat(e.number("value")).isEqualTo(95.0);
    assertThat(e.number("text")).isEqualTo(42.5);
    assertThat(e.number("meter.id")).isNaN();
    assertThat(e.number("missing.path")).isNaN();
    assertThat(e.number("")).isNaN();
  }

  @Test
  void textReadsDottedPathsAndArrayIndexes() {
    assertThat(e.text("meter.id")).isEqualTo("m1");
    assertThat(e.text("meter.tags.1")).isEqualTo("b");
    assertThat(e.text("meter.tags.2")).isNull();
    assertThat(e.text("meter.tags")).isEqualTo("[\"a\",\"b\"]");
    assertThat(e.text("value")).isEqualTo("95");
    assertThat(e.text("none")).isNull();
    assertThat(e.text("flag")).isEqualTo("true");
  }

  @Test
  void hasIsFalseForMissingAndNull() {
    assertThat(e.has("meter.tags.0")).isTrue();
    assertThat(e.has("none")).isFalse();
    assertThat(e.has("nope")).isFalse();
    assertThat(e.has("value.deeper")).isFalse();
  }

  @Test
  void attributesAndDataMap() {
    assertThat(e.getId()).isEqualTo("e1");
    assertThat(e.getType()).isEqualTo("t");
    assertThat(e.getSource()).isEqualTo("/test");
    assertThat(e.getTime()).isEqualTo(1_000L);
    assertThat(e.getData()).containsEntry("value", 95).containsKey("meter");
    assertThat(e.hopCount()).isZero();
  }

  @Test
  void dataIsAViewOfTheRoutedData() {
    assertThat(e.getData()).containsOnlyKeys("value", "text", "meter", "none", "flag");
    assertThat(e.getData().get("meter")).isEqualTo(Map.of("id", "m1", "tags", List.of("a", "b")));
    assertThat(e.getData().get("none")).isNull();
    assertThat(e.getData().get("flag")).isEqualTo(true);
    assertThat(e.getData().toString())
        .isEqualTo("{value=95, text=42.5, meter={id=m1, tags=[a, b]}, none=null, flag=true}");
    assertThat(TestEvents.event("e2", "t", 1L, "[1, 2]").getData()).isEmpty();
  }

  /**
   * Every public method of the data view, its nested maps and lists, their key sets, values,
   * entries and iterators, called with arguments that would change something: none changes the
   * routed event that subscribers receive (the mutators throw {@link
   * UnsupportedOperationException}).
   */
  @Test
  void noMethodOfTheDataViewsChangesTheRoutedEvent() throws Exception {
    String before = Json.write(EventAccess.routable(e).json());
    Map<String, Object> data = e.getData();
    @SuppressWarnings("unchecked")
    Map<String, Object> meter = (Map<String, Object>) data.get("meter");
    @SuppressWarnings("unchecked")
    List<Object> tags = (List<Object>) meter.get("tags");
    List<Object> targets =
        new ArrayList<>(
            List.of(
                data,
                meter,
                tags,
                data.keySet(),
                data.values(),
                data.entrySet(),
                data.entrySet().iterator().next(),
                tags.subList(0, 1),
                meter.keySet()));
    int refused = 0;
    int called = 0;
    for (int round = 0; round < 2; round++) {
      List<Object> iterators =
          List.of(
              data.keySet().iterator(),
              data.values().iterator(),
              data.entrySet().iterator(),
              tags.iterator(),
              tags.listIterator());
      for (Object target : round == 0 ? targets : iterators) {
        for (Method m : publicInterfaceMethods(target)) {
          if (Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() == Object.class) {
            continue;
          }
          if (target instanceof Iterator<?> it) {
            it.hasNext(); // an iterator's remove() needs a current element
          }
          called++;
          try {
            m.invoke(target, arguments(m));
          } catch (InvocationTargetException thrown) {
            if (thrown.getCause() instanceof UnsupportedOperationException) {
              refused++;
            }
          }
          assertThat(Json.write(EventAccess.routable(e).json()))
              .as("after %s.%s", target.getClass().getSimpleName(), m.getName())
              .isEqualTo(before);
        }
      }
    }
    assertThat(called).isGreaterThan(100);
    assertThat(refused).as("mutators refused").isGreaterThan(40);
    assertThat(data).containsEntry("value", 95);
    assertThat(tags).containsExactly("a", "b");
  }

  /**
   * Event's own public methods hand out only strings, numbers, booleans and the read-only data
   * view.
   */
  @Test
  void eventsPublicMethodsLeadNowhereElse() {
    for (Method m : Event.class.getMethods()) {
      if (m.getDeclaringClass() == Object.class || Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      assertThat(m.getReturnType())
          .as(m.getName())
          .isIn(String.class, long.class, int.class, double.class, boolean.class, Map.class);
    }
  }

  /**
   * The methods of the public interfaces (Map, List, Set, Iterator, Map.Entry...) an object
   * implements.
   */
  private static Set<Method> publicInterfaceMethods(Object target) {
    Set<Method> out = new java.util.LinkedHashSet<>();
    List<Class<?>> todo = new ArrayList<>();
    for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
      todo.addAll(List.of(c.getInterfaces()));
    }
    while (!todo.isEmpty()) {
      Class<?> i = todo.remove(0);
      todo.addAll(List.of(i.getInterfaces()));
      if (Modifier.isPublic(i.getModifiers())) {
        out.addAll(List.of(i.getMethods()));
      }
    }
    return out;
  }

  /**
   * Arguments that would change a collection: an existing key, element, index, and operations that
   * replace.
   */
  private static Object[] arguments(Method m) {
    Class<?>[] types = m.getParameterTypes();
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      Class<?> t = types[i];
      args[i] =
          t == int.class
              ? 0
              : t == Collection.class || t == List.class || t == Set.class
                  ? List.of("value", "a")
                  : t == Map.class
                      ? Map.of("value", 1)
                      : t == Predicate.class
                          ? (Predicate<Object>) x -> true
                          : t == UnaryOperator.class
                              ? (UnaryOperator<Object>) x -> "changed"
                              : t == Function.class
                                  ? (Function<Object, Object>) x -> "changed"
                                  : t == BiFunction.class
                                      ? (BiFunction<Object, Object, Object>) (x, y) -> "changed"
                                      : t == Comparator.class
                                          ? (Comparator<Object>) (x, y) -> 0
                                          : t == Object.class
                                              ? (i == 0 ? "value" : "changed")
                                              : t == String.class
                                                  ? "value"
                                                  : t == ListIterator.class || t.isArray()
                                                      ? null
                                                      : null;
    }
    return args;
  }
}
