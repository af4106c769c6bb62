package io.activityservice.rules.compile.internal;

import io.activityservice.rules.Event;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.AbstractCollection;
import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What rule code may use: the data behind {@link JavaCodeCheck} and {@link DescrCheck}. Everything
 * not listed here is refused. The lists are by name: the guard does not infer types, so a method
 * name is allowed on any receiver. That is safe because every object a rule can reach is one of the
 * types below (the {@code Event} fact, its JSON data as maps, lists, strings, numbers and booleans,
 * the results of the allowed calls and of the built-in accumulate functions), and no allowed name
 * leads from those to anything else (no {@code getClass}, no mutators, no streams or callbacks).
 */
public final class AllowList {

  private AllowList() {}

  /**
   * Imports a rule may repeat or add (the header already imports {@code Event} and {@code
   * java.util.Map}).
   */
  public static final Set<String> IMPORTS =
      Set.of(
          "io.activityservice.rules.Event",
          "java.util.Map",
          "java.util.List",
          "java.util.Set",
          "java.util.Collection");

  /** The one global: the header's {@code actions}. */
  public static final String ACTIONS = "actions";

  public static final String ACTIONS_TYPE = "io.activityservice.rules.Actions";

  /**
   * Simple type names usable in code: casts, local variables, {@code instanceof}, function
   * signatures, declared fields.
   */
  public static final Set<String> TYPES =
      Set.of(
          "Event",
          "String",
          "Object",
          "Number",
          "Integer",
          "Long",
          "Double",
          "Float",
          "Short",
          "Byte",
          "Boolean",
          "Character",
          "Map",
          "List",
          "Set",
          "Collection",
          "int",
          "long",
          "double",
          "float",
          "short",
          "byte",
          "boolean",
          "char");

  /**
   * Fact types patterns may match, besides declared types (fully qualified forms of the same types
   * included).
   */
  public static final Set<String> PATTERN_TYPES =
      Set.of(
          "Event",
          "io.activityservice.rules.Event",
          "Object",
          "java.lang.Object",
          "Number",
          "java.lang.Number",
          "Long",
          "java.lang.Long",
          "Integer",
          "java.lang.Integer",
          "Double",
          "java.lang.Double",
          "String",
          "java.lang.String",
          "Boolean",
          "java.lang.Boolean",
          "List",
          "java.util.List",
          "ArrayList",
          "java.util.ArrayList",
          "Collection",
          "java.util.Collection",
          "Set",
          "java.util.Set",
          "HashSet",
          "java.util.HashSet",
          "Map",
          "java.util.Map");

  /**
   * Static methods by class ({@code "*"}: every method of the class; all of {@code java.lang.Math}
   * is pure).
   */
  public static final Map<String, Set<String>> STATIC_METHODS =
      Map.ofEntries(
          Map.entry("Map", Set.of("of", "entry", "copyOf", "ofEntries")),
          Map.entry("List", Set.of("of", "copyOf")),
          Map.entry("Set", Set.of("of", "copyOf")),
          Map.entry("Math", Set.of("*")),
          Map.entry("String", Set.of("valueOf", "format", "join")),
          Map.entry(
              "Integer",
              Set.of("valueOf", "parseInt", "compare", "toString", "min", "max", "sum", "signum")),
          Map.entry(
              "Long",
              Set.of("valueOf", "parseLong", "compare", "toString", "min", "max", "sum", "signum")),
          Map.entry(
              "Double",
              Set.of(
                  "valueOf",
                  "parseDouble",
                  "compare",
                  "toString",
                  "min",
                  "max",
                  "sum",
                  "isNaN",
                  "isFinite",
                  "isInfinite")),
          Map.entry(
              "Float",
              Set.of(
                  "valueOf",
                  "parseFloat",
                  "compare",
                  "toString",
                  "min",
                  "max",
                  "sum",
                  "isNaN",
                  "isFinite",
                  "isInfinite")),
          Map.entry(
              "Boolean",
              Set.of(
                  "valueOf",
                  "parseBoolean",
                  "toString",
                  "compare",
                  "logicalAnd",
                  "logicalOr",
                  "logicalXor")));

  /** Static constants by class. */
  public static final Map<String, Set<String>> STATIC_FIELDS =
      Map.of(
          "Math", Set.of("PI", "E"),
          "Integer", Set.of("MAX_VALUE", "MIN_VALUE"),
          "Long", Set.of("MAX_VALUE", "MIN_VALUE"),
          "Double",
              Set.of("MAX_VALUE", "MIN_VALUE", "NaN", "POSITIVE_INFINITY", "NEGATIVE_INFINITY"),
          "Float",
              Set.of("MAX_VALUE", "MIN_VALUE", "NaN", "POSITIVE_INFINITY", "NEGATIVE_INFINITY"),
          "Boolean", Set.of("TRUE", "FALSE"));

  /**
   * Methods allowed on any value; in conditions also without a receiver (then they apply to the
   * pattern's fact).
   */
  public static final Set<String> INSTANCE_METHODS =
      Set.of(
          // Event (see Event.java): attributes, data helpers
          "getId",
          "getType",
          "getSource",
          "getSubject",
          "getTime",
          "getData",
          "number",
          "text",
          "has",
          "hopCount",
          // Object
          "equals",
          "hashCode",
          "toString",
          // String (no regular expressions: replaceAll, split and matches are left out; nothing
          // that multiplies a
          // string's length: repeat, replace and concat are left out)
          "equalsIgnoreCase",
          "startsWith",
          "endsWith",
          "contains",
          "length",
          "isEmpty",
          "isBlank",
          "substring",
          "toLowerCase",
          "toUpperCase",
          "trim",
          "strip",
          "indexOf",
          "lastIndexOf",
          "charAt",
          "compareTo",
          "compareToIgnoreCase",
          // boxed numbers and booleans
          "intValue",
          "longValue",
          "doubleValue",
          "floatValue",
          "shortValue",
          "byteValue",
          "booleanValue",
          "isNaN",
          "isInfinite",
          // reading maps, lists and sets (no mutators: the event's data is shared by every rule
          // set)
          "get",
          "getOrDefault",
          "containsKey",
          "containsValue",
          "size",
          "keySet",
          "values",
          "containsAll",
          "subList");

  /**
   * Properties conditions may navigate ({@code type}, {@code $e.data}, {@code intValue} on a {@code
   * Number}).
   */
  public static final Set<String> PROPERTIES =
      Set.of(
          "type",
          "id",
          "source",
          "subject",
          "time",
          "data",
          "intValue",
          "longValue",
          "doubleValue",
          "floatValue",
          "shortValue",
          "byteValue",
          "empty",
          "size");

  /** Constraint operators (the negated forms, {@code not matches}, are the same operators). */
  public static final Set<String> OPERATORS =
      Set.of(
          "==",
          "!=",
          "<",
          ">",
          "<=",
          ">=",
          "matches",
          "contains",
          "excludes",
          "memberOf",
          "soundslike",
          "str",
          "after",
          "before",
          "coincides",
          "meets",
          "metby",
          "overlaps",
          "overlappedby",
          "during",
          "includes",
          "starts",
          "startedby",
          "finishes",
          "finishedby");

  /** Drools' built-in accumulate functions. */
  public static final Set<String> ACCUMULATE_FUNCTIONS =
      Set.of(
          "count",
          "sum",
          "sumI",
          "sumL",
          "sumBI",
          "sumBD",
          "average",
          "averageBD",
          "min",
          "minN",
          "minI",
          "minL",
          "minBI",
          "minBD",
          "max",
          "maxN",
          "maxI",
          "maxL",
          "maxBI",
          "maxBD",
          "collectList",
          "collectSet",
          "variance",
          "standardDeviation");

  /**
   * Rule attributes ({@code dialect} only as {@code "java"}; {@code timer} and {@code duration}
   * only as one literal delay: repeating and cron timers run once per interval of event time,
   * millions of times when the clock jumps).
   */
  public static final Set<String> RULE_ATTRIBUTES =
      Set.of(
          "salience",
          "no-loop",
          "lock-on-active",
          "agenda-group",
          "activation-group",
          "auto-focus",
          "date-effective",
          "date-expires",
          "enabled",
          "timer",
          "calendars",
          "duration",
          "ruleflow-group",
          "dialect");

  /**
   * Annotations of {@code declare}d types, each with the only values it may have. Drools evaluates
   * some of them: the values of {@code @timestamp} and {@code @duration} are MVEL expressions run
   * on every fact, so they may only name a field of the type itself (or {@code time} for {@code
   * Event}).
   */
  public static final Set<String> TYPE_ANNOTATIONS =
      Set.of("role", "timestamp", "duration", "expires", "propertyReactive", "classReactive");

  /**
   * Annotations of the fields of {@code declare}d types: {@code @key} (no value) and
   * {@code @position(n)}.
   */
  public static final Set<String> FIELD_ANNOTATIONS = Set.of("key", "position");

  /** The values of {@code @role}. */
  public static final Set<String> ROLES = Set.of("event", "fact");

  /** The one field of {@code Event} {@code @timestamp} may name. */
  public static final String EVENT_TIMESTAMP = "time";

  /**
   * Widest {@code String.format} field (width or precision): {@code %999999999d} would allocate a
   * gigabyte.
   */
  public static final int MAX_FORMAT_WIDTH = 100;

  /**
   * Longest {@code window:length(n)}: Drools allocates the window's buffer when the rule first
   * runs, and a session never holds more than {@code max-events-per-rule} events anyway (50,000 by
   * default).
   */
  public static final int MAX_WINDOW_LENGTH = 100_000;

  /**
   * Names that have no business in a rule, with the reason given when one is refused. The guard
   * refuses them wherever they appear in code (outside strings and comments), even where the
   * parsers see something harmless: a second line of defence against a parser reading the text
   * differently from Drools.
   */
  public static final Map<String, String> DENIED;

  static {
    Map<String, String> d = new HashMap<>();
    deny(
        d,
        "reflection is not allowed",
        "Class",
        "forName",
        "getClass",
        "getDeclaredMethod",
        "getDeclaredMethods",
        "getDeclaredField",
        "getDeclaredFields",
        "getDeclaredConstructor",
        "getDeclaredConstructors",
        "getMethod",
        "getMethods",
        "getConstructor",
        "getConstructors",
        "newInstance",
        "invoke",
        "invokeExact",
        "setAccessible",
        "MethodHandles",
        "Unsafe");
    deny(
        d,
        "class loading is not allowed",
        "ClassLoader",
        "URLClassLoader",
        "getClassLoader",
        "getContextClassLoader",
        "getSystemClassLoader",
        "loadClass",
        "defineClass");
    deny(
        d,
        "access to the JVM and to processes is not allowed",
        "System",
        "Runtime",
        "getRuntime",
        "exec",
        "exit",
        "getenv",
        "setProperty",
        "getProperties",
        "clearProperty",
        "ProcessBuilder",
        "ProcessHandle");
    deny(d, "threads are not allowed", "Thread", "ThreadGroup", "Executors", "ForkJoinPool");
    deny(
        d,
        "file I/O is not allowed",
        "File",
        "Files",
        "Paths",
        "FileWriter",
        "FileOutputStream",
        "FileInputStream",
        "RandomAccessFile");
    deny(
        d,
        "network I/O is not allowed",
        "Socket",
        "ServerSocket",
        "DatagramSocket",
        "URL",
        "HttpURLConnection",
        "openStream",
        "openConnection");
    deny(
        d,
        "script engines, JNDI and deserialisation are not allowed",
        "ScriptEngineManager",
        "InitialContext",
        "ObjectInputStream");
    deny(
        d,
        "access to the Drools runtime is not allowed",
        "drools",
        "kcontext",
        "getKieRuntime",
        "getWorkingMemory");
    DENIED = Map.copyOf(d);
  }

  /**
   * Reasons for names that are refused where they occur in code but are too common as words to deny
   * everywhere.
   */
  public static final Map<String, String> REFUSED_CALLS =
      Map.ofEntries(
          Map.entry(
              "insert", "working-memory changes (insert/update/modify/delete) are not allowed"),
          Map.entry(
              "insertLogical",
              "working-memory changes (insert/update/modify/delete) are not allowed"),
          Map.entry(
              "update", "working-memory changes (insert/update/modify/delete) are not allowed"),
          Map.entry(
              "modify", "working-memory changes (insert/update/modify/delete) are not allowed"),
          Map.entry(
              "retract", "working-memory changes (insert/update/modify/delete) are not allowed"),
          Map.entry(
              "delete", "working-memory changes (insert/update/modify/delete) are not allowed"),
          Map.entry("halt", "halting the engine or the JVM is not allowed"),
          Map.entry("start", "threads and processes are not allowed"),
          Map.entry("run", "only actions.run(handler, params) may be called"));

  private static void deny(Map<String, String> d, String reason, String... names) {
    for (String n : names) {
      d.put(n, reason);
    }
  }

  /**
   * Every member name of the values rule code can reach (the {@code Event} fact; its data: maps,
   * lists, strings, numbers, booleans; what accumulate, collect and {@code Map.of} make), as a
   * condition would read it as a property: {@code size}, {@code bytes} for {@code getBytes()},
   * {@code empty} for {@code isEmpty()}. MVEL reads a property {@code x} through {@code getX()},
   * {@code isX()}, a method {@code x()} or a public field, on whatever value is there, so a
   * declared field may not be named like any of them (but those of {@link #PROPERTIES}): the name
   * would become a property on every value, and a chain of them could lead anywhere.
   */
  public static final Set<String> REACHABLE_MEMBERS =
      reachableMembers(
          Event.class,
          Object.class,
          String.class,
          CharSequence.class,
          Comparable.class,
          Number.class,
          Integer.class,
          Long.class,
          Double.class,
          Float.class,
          Short.class,
          Byte.class,
          BigInteger.class,
          BigDecimal.class,
          Boolean.class,
          Character.class,
          Map.class,
          List.class,
          Set.class,
          Collection.class,
          Iterable.class,
          AbstractMap.class,
          AbstractList.class,
          AbstractSet.class,
          AbstractCollection.class,
          HashMap.class,
          LinkedHashMap.class,
          ArrayList.class,
          HashSet.class,
          LinkedHashSet.class,
          Map.of().getClass(),
          Map.of("k", 1).getClass(),
          Map.of("k", 1, "l", 2).getClass(),
          List.of().getClass(),
          List.of(1).getClass(),
          List.of(1, 2, 3).getClass(),
          Set.of().getClass(),
          Set.of(1).getClass(),
          Set.of(1, 2, 3).getClass(),
          Collections.unmodifiableMap(new HashMap<>()).getClass(),
          Collections.unmodifiableList(new ArrayList<>()).getClass(),
          Collections.unmodifiableSet(new HashSet<>()).getClass(),
          Collections.emptyMap().getClass(),
          Collections.emptyList().getClass());

  private static Set<String> reachableMembers(Class<?>... classes) {
    Set<String> names = new HashSet<>();
    for (Class<?> c : classes) {
      for (Method m : c.getMethods()) {
        if (m.getParameterCount() != 0) {
          continue; // a property is read through a method without parameters
        }
        String n = m.getName();
        names.add(n);
        if (n.length() > 3 && n.startsWith("get") && Character.isUpperCase(n.charAt(3))) {
          names.add(Character.toLowerCase(n.charAt(3)) + n.substring(4));
        } else if (n.length() > 2 && n.startsWith("is") && Character.isUpperCase(n.charAt(2))) {
          names.add(Character.toLowerCase(n.charAt(2)) + n.substring(3));
        }
      }
      for (Field f : c.getFields()) {
        names.add(f.getName());
      }
    }
    names.removeAll(PROPERTIES);
    return Set.copyOf(names);
  }

  /** Why a name is refused, or {@code null} if it is not on the deny list. */
  public static String denied(String name) {
    String reason = DENIED.get(name);
    return reason != null ? reason : REFUSED_CALLS.get(name);
  }
}
