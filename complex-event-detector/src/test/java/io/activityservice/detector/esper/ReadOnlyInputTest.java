package io.activityservice.detector.esper;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The events detectors see are read-only: one converted event is shared by every detector of an
 * engine thread, and no method of it, of its maps and lists, their key sets, values, entries and
 * iterators changes it (the mutators throw) or the routed event subscribers receive (it is a
 * conversion, not a view of the routed JSON).
 */
class ReadOnlyInputTest {

  static final String DATA =
      "{\"value\": 60, \"meter\": {\"id\": \"m1\", \"tags\": [\"a\", \"b\"]}, \"x\": \"s\"}";

  @Test
  void noMethodOfAnUntypedInputEventChangesIt() throws Exception {
    everyMethodLeavesItUnchanged(InputType.UNTYPED);
  }

  @Test
  void noMethodOfATypedInputEventChangesIt() throws Exception {
    everyMethodLeavesItUnchanged(
        new InputType(
            Json.parse(
                """
        {"type": "object", "properties": {"value": {"type": "number"},
          "meter": {"type": "object", "properties": {"id": {"type": "string"}, "tags": {"type": "array"}}}}}""",
                "schema")));
  }

  private static void everyMethodLeavesItUnchanged(InputType type) throws Exception {
    RoutableEvent routed =
        RoutableEvent.of(
            CloudEventBuilder.v1()
                .withId("e1")
                .withSource(URI.create("/s"))
                .withType("t")
                .withTime(OffsetDateTime.now())
                .withExtension("tenant", "a")
                .withData("application/json", DATA.getBytes(StandardCharsets.UTF_8))
                .build());
    String routedBefore = Json.write(routed.json());
    InputEvent event = type.convert(routed);
    String before = String.valueOf(event);
    @SuppressWarnings("unchecked")
    Map<String, Object> data = (Map<String, Object>) event.get("data");
    @SuppressWarnings("unchecked")
    Map<String, Object> meter = (Map<String, Object>) data.get("meter");
    Object tags = meter.get("tags");
    List<Object> targets =
        new ArrayList<>(
            List.of(
                event,
                data,
                meter,
                event.get("extensions"),
                event.keySet(),
                event.values(),
                event.entrySet(),
                event.entrySet().iterator().next(),
                data.keySet(),
                data.values()));
    if (tags instanceof List<?> list) {
      targets.add(list);
      targets.add(list.iterator());
      targets.add(list.listIterator());
    }
    targets.add(event.keySet().iterator());
    targets.add(data.entrySet().iterator());
    int refused = 0;
    for (Object target : targets) {
      for (Method m : publicInterfaceMethods(target)) {
        if (Modifier.isStatic(m.getModifiers())) {
          continue;
        }
        if (target instanceof Iterator<?> it && it.hasNext() && m.getName().equals("remove")) {
          it.next();
        }
        try {
          m.invoke(target, arguments(m));
        } catch (InvocationTargetException thrown) {
          if (thrown.getCause() instanceof UnsupportedOperationException) {
            refused++;
          }
        }
        assertThat(String.valueOf(event))
            .as("after %s.%s", target.getClass().getSimpleName(), m.getName())
            .isEqualTo(before);
      }
    }
    assertThat(refused).as("mutators refused").isGreaterThan(40);
    assertThat(Json.write(routed.json())).as("the routed event").isEqualTo(routedBefore);
  }

  private static Set<Method> publicInterfaceMethods(Object target) {
    Set<Method> out = new LinkedHashSet<>();
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

  private static Object[] arguments(Method m) {
    Class<?>[] types = m.getParameterTypes();
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      Class<?> t = types[i];
      args[i] =
          t == int.class
              ? 0
              : t == Collection.class || t == List.class || t == Set.class
                  ? List.of("data", "id", "a")
                  : t == Map.class
                      ? Map.of("id", "changed")
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
                                              ? (i == 0 ? "id" : "changed")
                                              : t == String.class ? "id" : null;
    }
    return args;
  }
}
