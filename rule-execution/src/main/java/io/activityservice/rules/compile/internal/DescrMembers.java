package io.activityservice.rules.compile.internal;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Fail-closed for the parts of Drools' descriptors the guard walks: every public getter of a
 * descriptor that can hold a part of a rule set (a string, a collection, a map, an array, another
 * descriptor or any object) must be one the guard handles or knows to be inert; a getter it does
 * not know that holds something is reported. So a construct a later Drools version adds to a
 * descriptor is refused until the guard has been taught it, instead of being compiled unchecked.
 */
final class DescrMembers {

  /**
   * Getters of every descriptor that hold no part of the rule set: positions, resource, namespace,
   * source text.
   */
  private static final Set<String> INERT =
      Set.of(
          "getClass",
          "getColumn",
          "getEndCharacter",
          "getEndColumn",
          "getEndLine",
          "getLine",
          "getStartCharacter",
          "getResource",
          "getNamespace",
          "getText",
          "isNegated",
          "hashCode",
          "toString",
          "getLocation");

  private DescrMembers() {}

  /**
   * The getters of {@code descr} that hold something and are neither {@code handled} nor inert.
   *
   * @param descr a descriptor
   * @param handled getter names the guard checks (or knows to be inert) for this kind of descriptor
   */
  static List<String> unhandled(Object descr, Set<String> handled) {
    List<String> out = new ArrayList<>();
    for (Method m : descr.getClass().getMethods()) {
      String name = m.getName();
      if (m.getParameterCount() != 0
          || Modifier.isStatic(m.getModifiers())
          || INERT.contains(name)
          || handled.contains(name)
          || m.getDeclaringClass() == Object.class
          || !structural(m.getReturnType())
          || !(name.startsWith("get") || name.startsWith("is") || name.startsWith("has"))) {
        continue;
      }
      Object value;
      try {
        value = m.invoke(descr);
      } catch (ReflectiveOperationException | RuntimeException e) {
        out.add(name);
        continue;
      }
      if (present(value)) {
        out.add(name);
      }
    }
    out.sort(null);
    return out;
  }

  /** Return types that can carry a part of a rule set (numbers, booleans and enums cannot). */
  private static boolean structural(Class<?> type) {
    return !type.isPrimitive()
        && !Number.class.isAssignableFrom(type)
        && type != Boolean.class
        && !type.isEnum();
  }

  private static boolean present(Object value) {
    if (value == null) {
      return false;
    }
    if (value instanceof String s) {
      return !s.isBlank();
    }
    if (value instanceof Collection<?> c) {
      return !c.isEmpty();
    }
    if (value instanceof Map<?, ?> m) {
      return !m.isEmpty();
    }
    if (value instanceof Optional<?> o) {
      return o.isPresent();
    }
    if (value.getClass().isArray()) {
      return Array.getLength(value) > 0;
    }
    return true;
  }
}
