package io.activityservice.detector.esper.internal;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fail-closed for the parts of Esper's statement object model the guard walks: every public getter
 * of a model object (statement, clause, stream, view, pattern element) that can hold a part of the
 * statement (an expression, a clause, a list, a name) must be one {@link EplModelCheck} handles or
 * knows to be inert; a getter it does not know that holds something is reported. So what a later
 * Esper version adds to the object model is refused until the guard has been taught it, instead of
 * being compiled unchecked.
 */
final class ModelMembers {

  /**
   * Getters that hold no part of the statement: Esper's internal tree names, precedences, Object's
   * own.
   */
  private static final Set<String> INERT = Set.of("getClass", "getTreeObjectName", "getPrecedence");

  private ModelMembers() {}

  /**
   * The getters of {@code model} that hold something and are neither {@code handled} nor inert.
   *
   * @param model an object of the statement object model
   * @param handled getter names the guard checks (or refuses explicitly) for this kind of object
   */
  static List<String> unhandled(Object model, Set<String> handled) {
    List<String> out = new ArrayList<>();
    for (Method m : model.getClass().getMethods()) {
      String name = m.getName();
      if (m.getParameterCount() != 0
          || Modifier.isStatic(m.getModifiers())
          || m.getDeclaringClass() == Object.class
          || INERT.contains(name)
          || handled.contains(name)
          || !structural(m.getReturnType())
          || !(name.startsWith("get") || name.startsWith("is") || name.startsWith("has"))) {
        continue;
      }
      Object value;
      try {
        value = m.invoke(model);
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

  /** Return types that can carry a part of a statement (numbers, booleans and enums cannot). */
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
    if (value.getClass().isArray()) {
      return Array.getLength(value) > 0;
    }
    return true;
  }
}
