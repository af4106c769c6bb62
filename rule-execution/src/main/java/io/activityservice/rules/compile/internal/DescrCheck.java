package io.activityservice.rules.compile.internal;

import io.activityservice.rules.compile.internal.JavaCodeCheck.Dialect;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.drools.drl.ast.descr.AccumulateDescr;
import org.drools.drl.ast.descr.AccumulateDescr.AccumulateFunctionCallDescr;
import org.drools.drl.ast.descr.AndDescr;
import org.drools.drl.ast.descr.AnnotatedBaseDescr;
import org.drools.drl.ast.descr.AnnotationDescr;
import org.drools.drl.ast.descr.AtomicExprDescr;
import org.drools.drl.ast.descr.AttributeDescr;
import org.drools.drl.ast.descr.BaseDescr;
import org.drools.drl.ast.descr.BehaviorDescr;
import org.drools.drl.ast.descr.BindingDescr;
import org.drools.drl.ast.descr.CollectDescr;
import org.drools.drl.ast.descr.ConditionalElementDescr;
import org.drools.drl.ast.descr.ConstraintConnectiveDescr;
import org.drools.drl.ast.descr.EntryPointDescr;
import org.drools.drl.ast.descr.EvalDescr;
import org.drools.drl.ast.descr.ExistsDescr;
import org.drools.drl.ast.descr.ExprConstraintDescr;
import org.drools.drl.ast.descr.ForallDescr;
import org.drools.drl.ast.descr.FromDescr;
import org.drools.drl.ast.descr.FunctionDescr;
import org.drools.drl.ast.descr.FunctionImportDescr;
import org.drools.drl.ast.descr.GlobalDescr;
import org.drools.drl.ast.descr.ImportDescr;
import org.drools.drl.ast.descr.MVELExprDescr;
import org.drools.drl.ast.descr.NotDescr;
import org.drools.drl.ast.descr.OrDescr;
import org.drools.drl.ast.descr.PackageDescr;
import org.drools.drl.ast.descr.PatternDescr;
import org.drools.drl.ast.descr.PatternSourceDescr;
import org.drools.drl.ast.descr.QueryDescr;
import org.drools.drl.ast.descr.RelationalExprDescr;
import org.drools.drl.ast.descr.RuleDescr;
import org.drools.drl.ast.descr.TypeDeclarationDescr;
import org.drools.drl.ast.descr.TypeFieldDescr;
import org.drools.drl.ast.descr.WindowDeclarationDescr;
import org.drools.drl.ast.descr.WindowReferenceDescr;
import org.drools.drl.parser.DrlExprParser;
import org.drools.drl.parser.DrlExprParserFactory;
import org.kie.internal.builder.conf.LanguageLevelOption;

/**
 * Walks a parsed rule set ({@link PackageDescr}, exactly what is then handed to the Drools builder)
 * and checks every part against the {@link AllowList}: imports, globals, functions, type
 * declarations with their annotations and fields, entry-point and window declarations, rule and
 * query attributes and annotations, every condition (patterns and their fact types, constraints
 * split by Drools' own constraint parser, {@code eval}, {@code from}, {@code accumulate}, {@code
 * collect}, windows, entry points) and every consequence. Code inside these parts goes to {@link
 * JavaCodeCheck}; values Drools evaluates elsewhere (annotation values such as {@code @timestamp},
 * attribute values) must have the exact form the allow-list gives them. Fail-closed twice over: an
 * element kind that is not handled here is refused, and so is any part of a descriptor this walk
 * does not read ({@link DescrMembers}).
 */
public final class DescrCheck {

  private static final Pattern PLAIN_VALUE = Pattern.compile("[\\w\\s.$\"'\\-:,+]*");

  /** A name Drools reads as data (agenda and activation groups, calendars, entry points). */
  private static final Pattern PLAIN_NAME = Pattern.compile("[\\w .:/\\-]{0,200}");

  /** A date of date-effective / date-expires, parsed by Drools as a date, never evaluated. */
  private static final Pattern DATE = Pattern.compile("[\\w\\s:.,+\\-/]{1,40}");

  /**
   * A Drools duration: {@code 10m}, {@code 1h30m}, {@code 600000ms}, {@code 600000}, or {@code -1}
   * (never).
   */
  private static final Pattern DURATION =
      Pattern.compile("\\s*(-1|(\\d{1,12}(ms|s|m|h|d)?\\s*)+)\\s*");

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern TIMER =
      Pattern.compile("\\s*(int:)?\\s*\\d+[a-z]*(\\d+[a-z]*)*\\s*");
  private static final Pattern LITERAL = Pattern.compile("\\s*(-?\\d+|true|false)\\s*");
  private static final Pattern PARAMETER = Pattern.compile("\\s*-?[\\w.]*\\s*");

  /**
   * What each kind of descriptor may hold: the getters this walk reads, or knows to hold no code.
   */
  private static final Set<String> PACKAGE_MEMBERS =
      Set.of(
          "getName",
          "getDocumentation",
          "getUnit",
          "getImports",
          "getFunctionImports",
          "getAccumulateImports",
          "getGlobals",
          "getAttributes",
          "getFunctions",
          "getRules",
          "getTypeDeclarations",
          "getEntryPointDeclarations",
          "getWindowDeclarations",
          "getEnumDeclarations",
          "getClassAndEnumDeclarationDescrs",
          "getPreferredPkgUUID");

  private static final Set<String> RULE_MEMBERS =
      Set.of(
          "getName",
          "getDocumentation",
          "getUnit",
          "getUnitQualifiedName",
          "getAnnotations",
          "getAnnotationNames",
          "getAttributes",
          "getLhs",
          "getConsequence",
          "getNamedConsequences",
          "getClassName",
          "getDialect",
          "getSalience",
          "getEnabled",
          "getParentName",
          "getErrors",
          "getParameters",
          "getParameterTypes");
  private static final Set<String> TYPE_MEMBERS =
      Set.of(
          "getTypeName",
          "getFullTypeName",
          "getType",
          "getAnnotations",
          "getAnnotationNames",
          "getFields",
          "getSuperTypes",
          "getSuperTypeName",
          "getSuperTypeNamespace",
          "getSupertTypeFullName");
  private static final Set<String> FIELD_MEMBERS =
      Set.of(
          "getFieldName",
          "getInitExpr",
          "getPattern",
          "getAnnotations",
          "getAnnotationNames",
          "getOverriding");
  private static final Set<String> PATTERN_MEMBERS =
      Set.of(
          "getObjectType",
          "getIdentifier",
          "getAllBoundIdentifiers",
          "getAnnotations",
          "getAnnotationNames",
          "getBehaviors",
          "getDescrs",
          "getPositionalConstraints",
          "getSlottedConstraints",
          "getConstraint",
          "getSource",
          "getGenericType");
  private static final Set<String> ACCUMULATE_MEMBERS =
      Set.of(
          "getInput",
          "getInputPattern",
          "getDescrs",
          "getFunctions",
          "getInitCode",
          "getActionCode",
          "getReverseCode",
          "getResultCode",
          "getClassName",
          "getDeclarations");
  private static final Set<String> GROUP_MEMBERS =
      Set.of(
          "getDescrs",
          "getAllPatternDescr",
          "getAnnotations",
          "getAnnotationNames",
          "getBasePattern",
          "getRemainingPatterns",
          "getSelfJoinConstraint");
  private static final Set<String> EVAL_MEMBERS =
      Set.of("getContent", "getDeclarations", "getClassMethodName", "getDescrs");
  private static final Set<String> COLLECT_MEMBERS =
      Set.of("getInputPattern", "getDescrs", "getClassMethodName");
  private static final Set<String> FROM_MEMBERS =
      Set.of("getDataSource", "getExpression", "getDescrs");
  private static final Set<String> WINDOW_MEMBERS =
      Set.of("getName", "getPattern", "getAnnotations", "getAnnotationNames");

  private final LanguageLevelOption languageLevel;
  private final String source;
  private final List<Refusal> refusals = new ArrayList<>();
  private final Set<String> functions = new HashSet<>();
  private final Set<String> declaredTypes = new HashSet<>();
  private final Set<String> declaredFields = new HashSet<>();
  private final Map<ExprConstraintDescr, ConstraintConnectiveDescr> constraints =
      new IdentityHashMap<>();
  private JavaCodeCheck code;

  /**
   * The line of the rule, function or declaration being checked: for elements Drools gives no line.
   */
  private int context = 1;

  private DescrCheck(LanguageLevelOption languageLevel, String source) {
    this.languageLevel = languageLevel;
    this.source = source;
  }

  /**
   * Everything the rule set may not do, and the actions it runs.
   *
   * @param pkg the parsed rule set
   * @param source the text it was parsed from (to place consequences on their lines)
   * @param languageLevel the DRL language level Drools builds with (its constraint parser is used)
   */
  public static Result check(PackageDescr pkg, String source, LanguageLevelOption languageLevel) {
    DescrCheck check = new DescrCheck(languageLevel, source);
    check.run(pkg);
    return new Result(check.refusals, check.code.actionSites());
  }

  /**
   * What the check found.
   *
   * @param refusals everything the rule set may not do
   * @param actions the {@code actions.run(..)} calls of its consequences and functions
   */
  public record Result(List<Refusal> refusals, List<ActionSite> actions) {}

  private void run(PackageDescr pkg) {
    members(pkg, PACKAGE_MEMBERS, "the rule set");
    pkg.getFunctions().forEach(f -> functions.add(f.getName()));
    for (TypeDeclarationDescr t : pkg.getTypeDeclarations()) {
      declaredTypes.add(t.getTypeName());
      declaredFields.addAll(t.getFields().keySet());
    }
    code = new JavaCodeCheck(functions, declaredTypes, declaredFields, refusals);

    if (pkg.getUnit() != null) {
      refuse(pkg.getUnit(), "unit " + pkg.getUnit().getTarget(), "rule units are not allowed");
    }
    for (AttributeDescr a : pkg.getAttributes()) {
      attribute(a, Set.of());
    }
    imports(pkg);
    for (GlobalDescr g : pkg.getGlobals()) {
      if (!g.getIdentifier().equals(AllowList.ACTIONS)
          || !g.getType().equals(AllowList.ACTIONS_TYPE)) {
        refuse(
            g,
            "global " + g.getType() + " " + g.getIdentifier(),
            "globals are not allowed; the service " + "provides 'actions'");
      }
    }
    pkg.getEnumDeclarations()
        .forEach(e -> refuse(e, "declare enum " + e.getTypeName(), "enums are not allowed"));
    pkg.getEntryPointDeclarations()
        .forEach(
            e ->
                refuse(
                    e,
                    "declare entry-point " + e.getEntryPointId(),
                    "entry-point declarations are not allowed: events only enter the default entry point"));
    pkg.getTypeDeclarations().forEach(this::typeDeclaration);
    long eventDeclarations =
        pkg.getTypeDeclarations().stream().filter(t -> isEvent(t.getTypeName())).count();
    if (eventDeclarations > 1) {
      refuse(
          pkg.getTypeDeclarations().get(pkg.getTypeDeclarations().size() - 1),
          "declare Event",
          "Event may be declared once");
    }
    for (WindowDeclarationDescr w : pkg.getWindowDeclarations()) {
      context = w.getLine();
      members(w, WINDOW_MEMBERS, "declare window " + w.getName());
      refuseAnnotations(w, "a window declaration");
      Set<String> bindings = new HashSet<>();
      bindings(w.getPattern(), bindings);
      lhs(w.getPattern(), bindings);
    }
    pkg.getFunctions().forEach(this::function);
    recursion(pkg);
    pkg.getRules().forEach(this::rule);
  }

  // ---- package level

  private void imports(PackageDescr pkg) {
    for (ImportDescr i : pkg.getImports()) {
      if (!AllowList.IMPORTS.contains(i.getTarget())) {
        refuse(
            i,
            "import " + i.getTarget(),
            why(
                i.getTarget(),
                "only "
                    + String.join(", ", AllowList.IMPORTS.stream().sorted().toList())
                    + " may be imported"));
      }
    }
    for (FunctionImportDescr i : pkg.getFunctionImports()) {
      refuse(
          i,
          "import function/static " + i.getTarget(),
          why(i.getTarget(), "function and static imports are not " + "allowed"));
    }
    pkg.getAccumulateImports()
        .forEach(
            i ->
                refuse(
                    i,
                    "import accumulate " + i.getTarget(),
                    "custom accumulate functions are not allowed"));
  }

  private static boolean isEvent(String typeName) {
    return typeName.equals("Event") || typeName.equals("io.activityservice.rules.Event");
  }

  private void typeDeclaration(TypeDeclarationDescr t) {
    context = t.getLine();
    members(t, TYPE_MEMBERS, "declare " + t.getTypeName());
    String name = t.getTypeName();
    boolean event = isEvent(name);
    if (!event
        && (name.contains(".")
            || AllowList.TYPES.contains(name)
            || AllowList.STATIC_METHODS.containsKey(name)
            || AllowList.denied(name) != null)) {
      refuse(
          t,
          "declare " + name,
          "a declared type needs a new simple name (it may not re-declare a class)");
    }
    if (t.isTrait()) {
      refuse(t, "declare trait " + name, "traits are not allowed");
    }
    if (!t.getSuperTypes().isEmpty()) {
      refuse(
          t,
          "declare " + name + " extends " + t.getSuperTypeName(),
          "declared types may not extend a class");
    }
    if (event && !t.getFields().isEmpty()) {
      refuse(
          t,
          "declare Event " + String.join(", ", t.getFields().keySet()),
          "declare Event may only set its "
              + "annotations (@role, @timestamp, @expires...): its fields are the service's");
    }
    // @timestamp and @duration are read from the fact on every insert: they may only name a field
    // of the type
    Set<String> timeFields = event ? Set.of(AllowList.EVENT_TIMESTAMP) : t.getFields().keySet();
    typeAnnotations(t, name, timeFields);
    for (TypeFieldDescr f : t.getFields().values()) {
      int line = f.getLine() > 0 ? f.getLine() : t.getLine();
      members(f, FIELD_MEMBERS, "field " + f.getFieldName());
      // Field names become property names in conditions, on any value: no field may read like a
      // refused
      // getter (a field 'classLoader' would make $x.classLoader a property), nor like any method or
      // property of
      // the values rules reach (fields 'cloudEvent', 'toURL', 'content' would make a chain that
      // fetches a URL).
      String n = f.getFieldName();
      String getter = n.isEmpty() ? n : "get" + Character.toUpperCase(n.charAt(0)) + n.substring(1);
      String denied = AllowList.denied(n) != null ? AllowList.denied(n) : AllowList.denied(getter);
      if (denied != null) {
        refuse(f, "field " + n, "a field may not be named like something refused: " + denied);
      } else if (!IDENTIFIER.matcher(n).matches() || AllowList.REACHABLE_MEMBERS.contains(n)) {
        refuse(
            f,
            "field " + n,
            "a field may not be named like a method or property of the values rules reach "
                + "(Event, its data, strings, numbers, maps, lists): conditions would read that name on any of them");
      }
      code.typeName(f.getPattern().getObjectType(), line);
      if (f.getInitExpr() != null) {
        refuse(
            f,
            "field " + f.getFieldName() + " = " + f.getInitExpr(),
            "field initialisers are not allowed");
      }
      if (f.getOverriding() != null) {
        refuse(f, "field " + f.getFieldName(), "overriding fields are not allowed");
      }
      fieldAnnotations(f);
    }
  }

  /**
   * The annotations of a declared type, each with its one allowed form: {@code @role(event|fact)},
   * {@code @timestamp(field)} and {@code @duration(field)} naming a field of the type itself
   * ({@code time} for Event: Drools evaluates these values on every fact),
   * {@code @expires(duration)} with a literal duration, {@code @propertyReactive} and
   * {@code @classReactive} without values.
   */
  private void typeAnnotations(TypeDeclarationDescr t, String type, Set<String> timeFields) {
    for (AnnotationDescr a : t.getAnnotations()) {
      int at = annotationLine(a, t);
      String n = a.getName();
      if (!AllowList.TYPE_ANNOTATIONS.contains(n)) {
        refuse(
            at,
            "@" + n,
            "annotations of a declared type are limited to @"
                + String.join(", @", AllowList.TYPE_ANNOTATIONS.stream().sorted().toList()));
        continue;
      }
      String value =
          singleValue(a, at, !n.equals("propertyReactive") && !n.equals("classReactive"));
      if (value == null) {
        continue;
      }
      switch (n) {
        case "role" -> {
          if (!AllowList.ROLES.contains(value.toLowerCase(java.util.Locale.ROOT))) {
            refuse(at, "@role(" + value + ")", "@role is event or fact");
          }
        }
        case "timestamp", "duration" -> {
          if (!timeFields.contains(value)) {
            refuse(
                at,
                "@" + n + "(" + shorten(value) + ")",
                "@"
                    + n
                    + " may only name a field of "
                    + type
                    + (timeFields.isEmpty()
                        ? ""
                        : " (" + String.join(", ", new java.util.TreeSet<>(timeFields)) + ")")
                    + ": Drools evaluates its value on every event, so it may not be an expression");
          }
        }
        case "expires" -> {
          if (!DURATION.matcher(value).matches()) {
            refuse(
                at,
                "@expires(" + shorten(value) + ")",
                "@expires takes a literal duration such as 10m or 1h30m");
          }
        }
        default -> refuse(at, "@" + n + "(" + shorten(value) + ")", "@" + n + " takes no value");
      }
    }
  }

  /** {@code @key} (no value) and {@code @position(n)} on fields; nothing else. */
  private void fieldAnnotations(TypeFieldDescr f) {
    for (AnnotationDescr a : f.getAnnotations()) {
      int at = annotationLine(a, f);
      if (!AllowList.FIELD_ANNOTATIONS.contains(a.getName())) {
        refuse(
            at, "@" + a.getName(), "annotations of a field are limited to @key and @position(n)");
        continue;
      }
      String value = singleValue(a, at, a.getName().equals("position"));
      if (value != null && !value.matches("\\d{1,3}")) {
        refuse(at, "@position(" + shorten(value) + ")", "@position takes a number");
      }
    }
  }

  /**
   * The one plain value of an annotation ({@code @x(v)}, quotes removed), or null: refused when it
   * has other keys, a value that is not a string, or a value when it takes none (or none when it
   * needs one).
   */
  private String singleValue(AnnotationDescr a, int at, boolean needsValue) {
    Map<String, Object> values = a.getValueMap();
    if (!needsValue) {
      if (!values.isEmpty()) {
        refuse(at, "@" + a.getName() + "(..)", "@" + a.getName() + " takes no value");
      }
      return null;
    }
    if (values.size() != 1
        || !values.containsKey("value")
        || !(values.get("value") instanceof String v)) {
      refuse(at, "@" + a.getName() + values, "@" + a.getName() + " takes exactly one plain value");
      return null;
    }
    return unquote(v);
  }

  /**
   * The line of an annotation: Drools gives none for some, so it is found in the text from its
   * owner's line.
   */
  private int annotationLine(AnnotationDescr a, BaseDescr owner) {
    if (a.getLine() > 0) {
      return a.getLine();
    }
    int from = owner.getLine() > 0 ? owner.getLine() : context;
    return firstLineOf("@" + a.getName(), from);
  }

  /**
   * Rules, queries, patterns, windows and condition groups may carry no annotation: Drools
   * evaluates some.
   */
  private void refuseAnnotations(AnnotatedBaseDescr d, String where) {
    for (AnnotationDescr a : d.getAnnotations()) {
      refuse(
          annotationLine(a, d),
          "@" + a.getName(),
          "annotations are not allowed on " + where + " (Drools evaluates their values)");
    }
  }

  /** Refuses the parts of a descriptor this walk does not read. */
  private void members(Object descr, Set<String> handled, String where) {
    for (String member : DescrMembers.unhandled(descr, handled)) {
      refusals.add(
          new Refusal(
              descr instanceof BaseDescr b && b.getLine() > 0 ? b.getLine() : context,
              where + " (" + member.replaceFirst("^(get|is|has)", "") + ")",
              "the guard does not check this part of a rule set, so it is refused"));
    }
  }

  private static String shorten(String s) {
    String one = s.replaceAll("\\s+", " ");
    return one.length() > 60 ? one.substring(0, 57) + "..." : one;
  }

  private void function(FunctionDescr f) {
    context = f.getLine();
    if (f.getDialect() != null && !f.getDialect().equals("java")) {
      refuse(
          f,
          "function " + f.getName() + " in dialect " + f.getDialect(),
          "only Java functions are allowed");
    }
    String denied = AllowList.denied(f.getName());
    if (denied != null) {
      refuse(
          f,
          "function " + f.getName(),
          "a function may not be named like something refused: " + denied);
    }
    code.typeName(f.getReturnType() == null ? "void" : f.getReturnType(), f.getLine());
    f.getParameterTypes().forEach(type -> code.typeName(type, f.getLine()));
    String body = f.getBody() == null ? "" : f.getBody();
    code.statements(
        body, firstLineOf(body, f.getLine()), new HashSet<>(f.getParameterNames()), f.getName());
  }

  /**
   * Functions may call functions, but never back into themselves: no recursion, direct or indirect.
   */
  private void recursion(PackageDescr pkg) {
    Map<String, Set<String>> calls = code.functionCalls();
    for (FunctionDescr f : pkg.getFunctions()) {
      List<String> cycle = cycle(f.getName(), calls);
      if (cycle != null) {
        refuse(
            f,
            "recursion " + String.join(" -> ", cycle),
            "functions may not call themselves, directly or " + "through other functions");
      }
    }
  }

  private static List<String> cycle(String start, Map<String, Set<String>> calls) {
    Deque<List<String>> paths = new ArrayDeque<>();
    paths.add(List.of(start));
    Set<String> seen = new HashSet<>();
    while (!paths.isEmpty()) {
      List<String> path = paths.poll();
      for (String next : calls.getOrDefault(path.get(path.size() - 1), Set.of())) {
        List<String> longer = new ArrayList<>(path);
        longer.add(next);
        if (next.equals(start)) {
          return longer;
        }
        if (seen.add(next)) {
          paths.add(longer);
        }
      }
    }
    return null;
  }

  // ---- rules

  private void rule(RuleDescr rule) {
    context = rule.getLine();
    members(rule, RULE_MEMBERS, (rule instanceof QueryDescr ? "query " : "rule ") + rule.getName());
    refuseAnnotations(rule, rule instanceof QueryDescr ? "queries" : "rules");
    if (rule.getUnit() != null) {
      refuse(rule, "unit " + rule.getUnit().getTarget(), "rule units are not allowed");
    }
    Set<String> bindings = new HashSet<>();
    if (rule instanceof QueryDescr query) {
      String[] types = query.getParameterTypes();
      for (int i = 0; types != null && i < types.length; i++) {
        code.typeName(types[i], query.getLine());
        bindings.add(query.getParameters()[i]);
      }
    }
    bindings(rule.getLhs(), bindings);
    for (AttributeDescr a : rule.getAttributes().values()) {
      attribute(a, bindings);
    }
    lhs(rule.getLhs(), bindings);
    if (!rule.getNamedConsequences().isEmpty()) {
      refuse(
          rule,
          "then[" + String.join(", ", rule.getNamedConsequences().keySet()) + "]",
          "named consequences are not allowed");
    }
    if (rule.getConsequence() instanceof String consequence && !consequence.isBlank()) {
      int then = rule.getConsequenceLine() > 0 ? rule.getConsequenceLine() : rule.getLine();
      code.statements(consequence, firstLineOf(consequence, then), bindings, null);
    } else if (rule.getConsequence() != null && !(rule.getConsequence() instanceof String)) {
      refuse(rule, "consequence", "a consequence must be Java text");
    }
  }

  /**
   * Rule (and package) attributes, each in the one form the allow-list gives it. Drools evaluates
   * {@code salience} and {@code enabled} as expressions (checked as code), parses dates, and reads
   * the others as names, booleans or literal delays.
   */
  private void attribute(AttributeDescr a, Set<String> bindings) {
    String name = a.getName();
    String value = a.getValue() == null ? "" : a.getValue();
    if (!AllowList.RULE_ATTRIBUTES.contains(name)) {
      refuse(a, name, "attribute is not allowed");
      return;
    }
    AttributeDescr.Type type = a.getType();
    switch (name) {
      case "dialect" -> {
        if (!unquote(value).equals("java")) {
          refuse(
              a,
              "dialect \"" + unquote(value) + "\"",
              "only the Java dialect is allowed: MVEL " + "consequences are not checked");
        }
      }
      case "salience", "enabled" -> {
        if (!LITERAL.matcher(value).matches()) {
          code.expression(value, a.getLine(), bindings, Dialect.MVEL);
        }
      }
      case "timer", "duration" -> {
        if (!TIMER.matcher(unquote(value)).matches()) {
          refuse(
              a,
              name + " (" + value + ")",
              "only a single literal delay is allowed, e.g. timer (int: 30s): "
                  + "repeating and cron timers fire once per interval of event time");
        }
      }
      case "no-loop", "lock-on-active", "auto-focus" -> {
        if (type != AttributeDescr.Type.BOOLEAN || !value.matches("\\s*(true|false)?\\s*")) {
          refuse(a, name + " " + value, name + " is true or false");
        }
      }
      case "date-effective", "date-expires" -> {
        if (type != AttributeDescr.Type.DATE || !DATE.matcher(unquote(value)).matches()) {
          refuse(a, name + " " + value, name + " takes a date in quotes, e.g. \"01-Jan-2030\"");
        }
      }
      case "calendars" -> {
        String list = value.trim();
        list =
            list.startsWith("[") && list.endsWith("]")
                ? list.substring(1, list.length() - 1)
                : list;
        for (String calendar : list.split(",")) {
          if (!PLAIN_NAME.matcher(unquote(calendar)).matches()) {
            refuse(a, name + " " + value, "calendars are names in quotes");
            break;
          }
        }
      }
      default -> {
        // agenda-group, activation-group, ruleflow-group: names Drools reads as data
        if (type != AttributeDescr.Type.STRING || !PLAIN_NAME.matcher(unquote(value)).matches()) {
          refuse(
              a,
              name + " " + value,
              name + " takes a name in quotes (letters, digits, spaces, . : / - _)");
        }
      }
    }
  }

  /**
   * Names bound anywhere in the conditions (patterns, fields, accumulate results, query
   * parameters).
   */
  private void bindings(BaseDescr d, Set<String> out) {
    if (d instanceof PatternDescr p) {
      if (p.getIdentifier() != null) {
        out.add(p.getIdentifier());
      }
      for (BaseDescr c : p.getDescrs()) {
        if (c instanceof ExprConstraintDescr e) {
          constraintBindings(parse(e), out);
        }
      }
      bindings(p.getSource(), out);
    } else if (d instanceof AccumulateDescr acc) {
      for (AccumulateFunctionCallDescr f : acc.getFunctions()) {
        if (f.getBind() != null) {
          out.add(f.getBind());
        }
      }
      bindings(acc.getInput(), out);
    } else if (d instanceof CollectDescr collect) {
      bindings(collect.getInputPattern(), out);
    } else if (isGroup(d)) {
      for (BaseDescr child : ((ConditionalElementDescr) d).getDescrs()) {
        bindings(child, out);
      }
    }
  }

  /**
   * and, or, not, exists, forall: groups of conditions (eval, accumulate and collect are
   * conditional elements too).
   */
  private static boolean isGroup(BaseDescr d) {
    return d instanceof AndDescr
        || d instanceof OrDescr
        || d instanceof NotDescr
        || d instanceof ExistsDescr
        || d instanceof ForallDescr;
  }

  private static void constraintBindings(BaseDescr d, Set<String> out) {
    if (d instanceof BindingDescr b) {
      out.add(b.getVariable());
    } else if (d instanceof ConstraintConnectiveDescr c) {
      c.getDescrs().forEach(x -> constraintBindings(x, out));
    } else if (d instanceof RelationalExprDescr r) {
      constraintBindings(r.getLeft(), out);
      constraintBindings(r.getRight(), out);
    }
  }

  private ConstraintConnectiveDescr parse(ExprConstraintDescr e) {
    return constraints.computeIfAbsent(
        e,
        x -> {
          DrlExprParser parser = DrlExprParserFactory.getDrlExprParser(languageLevel);
          ConstraintConnectiveDescr parsed = parser.parse(x.getExpression());
          return parser.hasErrors() ? null : parsed;
        });
  }

  private void lhs(BaseDescr d, Set<String> bindings) {
    if (d == null) {
      return;
    }
    if (d instanceof PatternDescr p) {
      pattern(p, bindings);
    } else if (d instanceof EvalDescr eval) {
      members(eval, EVAL_MEMBERS, "eval");
      String content = String.valueOf(eval.getContent());
      code.expression(content, eval.getLine(), bindings, Dialect.JAVA);
    } else if (d instanceof AccumulateDescr acc) {
      accumulate(acc, bindings);
    } else if (d instanceof CollectDescr collect) {
      members(collect, COLLECT_MEMBERS, "collect");
      lhs(collect.getInputPattern(), bindings);
    } else if (isGroup(d)) {
      members(
          d,
          GROUP_MEMBERS,
          d.getClass().getSimpleName().replace("Descr", "").toLowerCase(java.util.Locale.ROOT));
      if (d instanceof AnnotatedBaseDescr annotated) {
        refuseAnnotations(annotated, "conditions");
      }
      for (BaseDescr child : ((ConditionalElementDescr) d).getDescrs()) {
        lhs(child, bindings);
      }
    } else {
      refuse(
          d,
          d.getClass().getSimpleName().replace("Descr", ""),
          "this kind of condition is not allowed");
    }
  }

  private void pattern(PatternDescr p, Set<String> bindings) {
    members(p, PATTERN_MEMBERS, "pattern " + p.getObjectType());
    if (p.isQuery()) {
      refuse(p, "?" + p.getObjectType() + "( )", "calling queries from conditions is not allowed");
    }
    String type = p.getObjectType();
    if (type == null || !(AllowList.PATTERN_TYPES.contains(type) || declaredTypes.contains(type))) {
      refuse(
          p,
          String.valueOf(type) + "( )",
          why(
              type,
              "patterns may match Event, Number, Object, String, the "
                  + "boxed numbers, List, Set, Collection, Map and declared types only"));
    }
    refuseAnnotations(p, "patterns");
    for (BehaviorDescr b : p.getBehaviors()) {
      String construct =
          "over "
              + b.getType()
              + ":"
              + b.getSubType()
              + "("
              + String.join(", ", b.getParameters())
              + ")";
      boolean window =
          "window".equals(b.getType())
              && ("time".equals(b.getSubType()) || "length".equals(b.getSubType()));
      if (!window || b.getParameters().stream().anyMatch(x -> !PARAMETER.matcher(x).matches())) {
        refuse(
            p,
            construct,
            "only over window:time(..) and window:length(..) with literal values are allowed");
      } else if ("length".equals(b.getSubType()) && !shortWindow(b.getParameters())) {
        // Drools allocates a length window's buffer up front: window:length(200000000) is an
        // OutOfMemoryError.
        refuse(
            p,
            construct,
            "a length window may hold at most " + AllowList.MAX_WINDOW_LENGTH + " events");
      }
    }
    for (BaseDescr c : p.getDescrs()) {
      if (c instanceof ExprConstraintDescr e) {
        constraint(e, bindings);
      } else {
        refuse(c.getLine() > 0 ? c : p, c.toString(), "this kind of constraint is not allowed");
      }
    }
    PatternSourceDescr source = p.getSource();
    if (source instanceof FromDescr from) {
      members(from, FROM_MEMBERS, "from");
      if (from.getDataSource() instanceof MVELExprDescr expr) {
        code.expression(expr.getExpression(), p.getLine(), bindings, Dialect.MVEL);
      } else {
        refuse(p, "from " + from.getDataSource(), "this kind of from source is not allowed");
      }
    } else if (source instanceof AccumulateDescr || source instanceof CollectDescr) {
      lhs(source, bindings);
    } else if (source != null
        && !(source instanceof EntryPointDescr)
        && !(source instanceof WindowReferenceDescr)) {
      refuse(p, "from " + source, "this kind of pattern source is not allowed");
    }
  }

  private static boolean shortWindow(List<String> parameters) {
    if (parameters.size() != 1 || !parameters.get(0).trim().matches("\\d{1,9}")) {
      return false;
    }
    return Integer.parseInt(parameters.get(0).trim()) <= AllowList.MAX_WINDOW_LENGTH;
  }

  private void accumulate(AccumulateDescr acc, Set<String> bindings) {
    int line = acc.getLine() > 0 ? acc.getLine() : context;
    members(acc, ACCUMULATE_MEMBERS, "accumulate");
    if (!acc.isExternalFunction()) {
      refuse(
          acc,
          "accumulate( .., init(..) action(..) result(..) )",
          "inline accumulate code is not allowed; use "
              + "count, sum, average, min, max, collectList or collectSet");
    }
    for (AccumulateFunctionCallDescr f : acc.getFunctions()) {
      if (!AllowList.ACCUMULATE_FUNCTIONS.contains(f.getFunction())) {
        refusals.add(
            new Refusal(
                line,
                f.getFunction() + "(..)",
                "only Drools' built-in accumulate functions "
                    + "(count, sum, average, min, max, collectList, collectSet, ...) are allowed"));
      }
      for (String param : f.getParams()) {
        code.expression(param, line, bindings, Dialect.MVEL);
      }
    }
    lhs(acc.getInput(), bindings);
  }

  private void constraint(ExprConstraintDescr e, Set<String> bindings) {
    ConstraintConnectiveDescr parsed = parse(e);
    if (parsed == null) {
      refuse(e, e.getExpression(), "Drools cannot parse this constraint");
      return;
    }
    constraintPart(parsed, e, bindings);
  }

  private void constraintPart(BaseDescr d, ExprConstraintDescr in, Set<String> bindings) {
    if (d instanceof ConstraintConnectiveDescr c) {
      c.getDescrs().forEach(x -> constraintPart(x, in, bindings));
    } else if (d instanceof RelationalExprDescr r) {
      String op = r.getOperatorDescr().getOperator();
      if (!AllowList.OPERATORS.contains(op)) {
        refuse(in, op, "operator is not allowed");
      }
      List<String> params = r.getOperatorDescr().getParameters();
      if (params != null && params.stream().anyMatch(x -> !PARAMETER.matcher(x).matches())) {
        refuse(in, op + params, "operator parameters must be literal durations or names");
      }
      if (op.equals("matches") && !(r.getRight() instanceof AtomicExprDescr a && a.isLiteral())) {
        refuse(
            in,
            "matches " + r.getRight(),
            "the regular expression of 'matches' must be a string literal");
      }
      constraintPart(r.getLeft(), in, bindings);
      constraintPart(r.getRight(), in, bindings);
    } else if (d instanceof AtomicExprDescr a) {
      code.expression(a.getExpression(), lineIn(in, a.getExpression()), bindings, Dialect.MVEL);
    } else if (d instanceof BindingDescr b) {
      String denied = AllowList.denied(b.getVariable());
      if (denied != null) {
        refuse(
            in,
            b.getVariable() + " :",
            "a binding may not be named like something refused: " + denied);
      }
      if (b.getExpression() != null && !b.getExpression().isBlank()) {
        code.expression(b.getExpression(), lineIn(in, b.getExpression()), bindings, Dialect.MVEL);
      }
    } else {
      refuse(in, in.getExpression(), "this kind of constraint is not allowed");
    }
  }

  // ---- lines

  private int lineIn(ExprConstraintDescr in, String part) {
    int at = in.getExpression().indexOf(part);
    return in.getLine() + (at < 0 ? 0 : DrlScanner.lineOf(in.getExpression(), at) - 1);
  }

  /**
   * The line where a code block starts: found in the source from its descr's line on, else that
   * line.
   */
  private int firstLineOf(String text, int fromLine) {
    int index = 0;
    for (int line = 1; line < fromLine && index >= 0; line++) {
      index = source.indexOf('\n', index);
      index = index < 0 ? -1 : index + 1;
    }
    int at = index < 0 ? -1 : source.indexOf(text, index);
    return at < 0 ? fromLine : DrlScanner.lineOf(source, at);
  }

  private void refuse(int line, String construct, String reason) {
    refusals.add(new Refusal(line > 0 ? line : context, construct, reason));
  }

  private void refuse(BaseDescr at, String construct, String reason) {
    refusals.add(
        new Refusal(at == null || at.getLine() <= 0 ? context : at.getLine(), construct, reason));
  }

  private static String why(String qualified, String otherwise) {
    if (qualified != null) {
      for (String part : qualified.split("[.\\s]")) {
        String denied = AllowList.denied(part);
        if (denied != null) {
          return denied;
        }
      }
    }
    return otherwise;
  }

  /** An attribute value without its quotes (Drools gives some quoted, some not). */
  private static String unquote(String v) {
    String t = v.trim();
    return t.length() >= 2
            && (t.startsWith("\"") && t.endsWith("\"") || t.startsWith("'") && t.endsWith("'"))
        ? t.substring(1, t.length() - 1)
        : t;
  }
}
