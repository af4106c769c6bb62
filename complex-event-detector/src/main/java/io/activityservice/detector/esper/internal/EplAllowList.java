package io.activityservice.detector.esper.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What detector EPL may name, in one place: the guard ({@link EplGuard}), the class resolver
 * ({@link AllowListClassForNameProvider}) and the module README are kept in line with it.
 * Everything not listed here is refused: allow-lists, not deny-lists, wherever EPL names something.
 */
public final class EplAllowList {

  /** Static methods of {@link Math}: all are pure functions of their arguments. */
  private static final Set<String> MATH_METHODS =
      Arrays.stream(Math.class.getMethods())
          .filter(m -> Modifier.isStatic(m.getModifiers()))
          .map(Method::getName)
          .collect(Collectors.toUnmodifiableSet());

  /**
   * Classes EPL may call static methods on, by the names EPL may write, with the methods allowed.
   */
  static final Map<String, Set<String>> STATIC_METHODS =
      Map.of(
          "Math", MATH_METHODS,
          "java.lang.Math", MATH_METHODS);

  /**
   * Fully qualified names the class resolver hands to Esper: {@link Math} for static calls, and the
   * types {@code cast} and {@code instanceof} resolve (Esper asks for the boxed name of {@code
   * int}, {@code double}...).
   */
  static final Set<String> RESOLVABLE_CLASSES =
      Set.of(
          "java.lang.Math",
          "java.lang.String",
          "java.lang.Boolean",
          "java.lang.Character",
          "java.lang.Byte",
          "java.lang.Short",
          "java.lang.Integer",
          "java.lang.Long",
          "java.lang.Float",
          "java.lang.Double",
          "java.math.BigDecimal",
          "java.math.BigInteger");

  /**
   * The imports the compiler gets instead of Esper's defaults ({@code java.lang.*}, {@code
   * java.util.*}...).
   */
  static final Set<String> IMPORTS =
      Set.of("java.lang.Math", "java.math.BigDecimal", "java.math.BigInteger");

  /**
   * Type names {@code cast(x, type)} and {@code instanceof(x, type...)} accept (compared ignoring
   * case).
   */
  static final Set<String> TYPES =
      lower(
          Stream.of(
              "string",
              "varchar",
              "char",
              "character",
              "bool",
              "boolean",
              "byte",
              "short",
              "int",
              "integer",
              "long",
              "float",
              "double",
              "bigdecimal",
              "biginteger",
              "java.lang.String",
              "java.lang.Boolean",
              "java.lang.Character",
              "java.lang.Byte",
              "java.lang.Short",
              "java.lang.Integer",
              "java.lang.Long",
              "java.lang.Float",
              "java.lang.Double",
              "java.math.BigDecimal",
              "java.math.BigInteger"));

  /**
   * Methods EPL may call on values (compared ignoring case, as Esper resolves enumeration and
   * date-time methods): read-only methods of strings, numbers, booleans and maps, Esper's
   * enumeration methods and Esper's date-time methods. Nothing that reaches {@code Class}, class
   * loaders, threads, files or the network, and nothing whose result can grow exponentially with
   * chaining ({@code String.replace}, {@code repeat}, the {@code aggregate} enumeration method).
   */
  static final Set<String> VALUE_METHODS =
      lower(
          Stream.of(
              // java.lang.String
              "charAt",
              "compareTo",
              "compareToIgnoreCase",
              "concat",
              "contains",
              "endsWith",
              "equals",
              "equalsIgnoreCase",
              "indexOf",
              "isBlank",
              "isEmpty",
              "lastIndexOf",
              "length",
              "split",
              "startsWith",
              "strip",
              "stripLeading",
              "stripTrailing",
              "substring",
              "toLowerCase",
              "toUpperCase",
              "trim",
              "toString",
              // java.lang.Number, Boolean, Double
              "byteValue",
              "shortValue",
              "intValue",
              "longValue",
              "floatValue",
              "doubleValue",
              "booleanValue",
              "isNaN",
              "isInfinite",
              // java.util.Map (read-only)
              "containsKey",
              "containsValue",
              "get",
              "size",
              // Esper enumeration methods (not aggregate: its accumulator can double a string per
              // element)
              "allOf",
              "anyOf",
              "arrayOf",
              "average",
              "countOf",
              "distinctOf",
              "except",
              "firstOf",
              "groupBy",
              "intersect",
              "lastOf",
              "leastFrequent",
              "max",
              "maxBy",
              "min",
              "minBy",
              "mostFrequent",
              "orderBy",
              "orderByDesc",
              "reverse",
              "selectFrom",
              "sequenceEqual",
              "sumOf",
              "take",
              "takeLast",
              "takeWhile",
              "takeWhileLast",
              "toMap",
              "union",
              "where",
              // Esper date-time methods
              "after",
              "before",
              "between",
              "coincides",
              "during",
              "finishedBy",
              "finishes",
              "format",
              "getDayOfMonth",
              "getDayOfWeek",
              "getDayOfYear",
              "getEra",
              "getHourOfDay",
              "getMillisOfSecond",
              "getMinuteOfHour",
              "getMonthOfYear",
              "getSecondOfMinute",
              "getWeekyear",
              "getYear",
              "includes",
              "meets",
              "metBy",
              "minus",
              "overlappedBy",
              "overlaps",
              "plus",
              "roundCeiling",
              "roundFloor",
              "roundHalf",
              "set",
              "startedBy",
              "starts",
              "toCalendar",
              "toDate",
              "toMillisec",
              "withDate",
              "withMax",
              "withMin",
              "withTime"));

  /**
   * Property names refused at any depth, ignoring case: Esper reads a dynamic property ({@code
   * x?.class?}) of a Java object through its getter at runtime, and every escape through getters
   * starts at {@code getClass()}.
   */
  static final Set<String> PROPERTY_NAMES_REFUSED =
      Set.of(
          "class",
          "getclass",
          "classloader",
          "module",
          "protectiondomain",
          "declaringclass",
          "enclosingclass");

  /**
   * First segments of dotted names that are package roots: {@code java.lang.Runtime}, {@code
   * javax...}, {@code org.springframework...}. Refused unless the segment is one of the detector's
   * input aliases.
   */
  static final Set<String> PACKAGE_ROOTS =
      Set.of(
          "java", "javax", "jdk", "sun", "com", "org", "io", "net", "jakarta", "groovy", "kotlin",
          "scala");

  /** Data windows whose size is bounded by a count, and the index of the count parameter. */
  static final Map<String, Integer> COUNT_WINDOWS =
      Map.of("length", 0, "length_batch", 0, "firstlength", 0, "sort", 0, "time_length_batch", 1);

  /** Data windows whose size is bounded by a time, and the index of the time parameter. */
  static final Map<String, Integer> TIME_WINDOWS =
      Map.of(
          "time",
          0,
          "time_batch",
          0,
          "firsttime",
          0,
          "time_length_batch",
          0,
          "ext_timed",
          1,
          "ext_timed_batch",
          1,
          "time_order",
          1);

  /**
   * Views without a size of their own: the keyed and statistics views, {@code lastevent} and {@code
   * firstevent}. Refused: {@code keepall}, {@code time_accum}, {@code expr}, {@code expr_batch} and
   * {@code timetolive}, which retain events without bound, and {@code rank}, whose size is not at a
   * fixed position.
   */
  static final Set<String> OTHER_VIEWS =
      Set.of(
          "unique",
          "firstunique",
          "groupwin",
          "lastevent",
          "firstevent",
          "size",
          "uni",
          "weighted_avg",
          "linest",
          "correl");

  /**
   * Views that only make sense with a count or time window beside them: they keep one event per
   * key.
   */
  static final Set<String> KEYED_VIEWS = Set.of("unique", "firstunique", "groupwin");

  /**
   * Views that bound what a stream retains (together with {@link #COUNT_WINDOWS} and {@link
   * #TIME_WINDOWS}).
   */
  static final Set<String> SINGLE_EVENT_VIEWS = Set.of("lastevent", "firstevent");

  /**
   * Aggregations (Esper's extended built-ins) that keep every value they aggregate; like {@code
   * median}, {@code avedev} and any {@code distinct} aggregation they need a bounded data window.
   */
  static final Set<String> RETAINING_AGGREGATIONS = Set.of("sorted", "maxby", "minby");

  /**
   * Esper's extended built-in aggregations (parsed as plug-in projections); no plug-in aggregation
   * is configured.
   */
  static final Set<String> EXTENDED_AGGREGATIONS =
      Set.of("rate", "nth", "leaving", "sorted", "maxby", "minby", "maxbyever", "minbyever");

  /** Pattern guards, as namespace:name ({@code while} is Esper's {@code internal:while}). */
  static final Set<String> PATTERN_GUARDS =
      Set.of("timer:within", "timer:withinmax", "internal:while");

  /** Pattern observers, as namespace:name. */
  static final Set<String> PATTERN_OBSERVERS =
      Set.of("timer:interval", "timer:at", "timer:schedule");

  /** Pattern annotations, which take no values. */
  static final Set<String> PATTERN_ANNOTATIONS =
      Set.of("SuppressOverlappingMatches", "DiscardPartialsOnMatch");

  /**
   * View namespaces of Esper's own views (the old {@code R.win:length(3)} form); plug-in views are
   * not configured.
   */
  static final Set<String> VIEW_NAMESPACES = Set.of("win", "std", "ext", "stat");

  /**
   * Most states a statement's match_recognize patterns may expand to: Esper compiles one NFA state
   * per (repeated) variable into generated code, and {@code A{1000}} took 8 s and ~90 MB to compile
   * here, {@code A{10000}} failed.
   */
  static final long MAX_REGEX_STATES = 100;

  private EplAllowList() {}

  /** The class names EPL may call static methods on, for messages. */
  static String staticClasses() {
    return String.join(", ", new TreeSet<>(STATIC_METHODS.keySet()));
  }

  private static Set<String> lower(Stream<String> names) {
    return names.map(n -> n.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
  }
}
