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
 * declarations, rule attributes and annotations, every condition (patterns and their fact types,
 * constraints split by Drools' own constraint parser, {@code eval}, {@code from}, {@code accumulate},
 * {@code collect}, windows) and every consequence. Code inside these parts goes to {@link JavaCodeCheck}.
 * An element kind that is not handled here is refused.
 */
public final class DescrCheck {

  private static final Pattern PLAIN_VALUE = Pattern.compile("[\\w\\s.$\"'\\-:,+]*");
  private static final Pattern TIMER = Pattern.compile("\\s*(int:)?\\s*\\d+[a-z]*(\\d+[a-z]*)*\\s*");
  private static final Pattern LITERAL = Pattern.compile("\\s*(-?\\d+|true|false)\\s*");
  private static final Pattern PARAMETER = Pattern.compile("\\s*-?[\\w.]*\\s*");

  private final LanguageLevelOption languageLevel;
  private final String source;
  private final List<Refusal> refusals = new ArrayList<>();
  private final Set<String> functions = new HashSet<>();
  private final Set<String> declaredTypes = new HashSet<>();
  private final Set<String> declaredFields = new HashSet<>();
  private final Map<ExprConstraintDescr, ConstraintConnectiveDescr> constraints = new IdentityHashMap<>();
  private JavaCodeCheck code;
  /** The line of the rule, function or declaration being checked: for elements Drools gives no line. */
  private int context = 1;

  private DescrCheck(LanguageLevelOption languageLevel, String source) {
    this.languageLevel = languageLevel;
    this.source = source;
  }

  /**
   * Everything the rule set may not do.
   *
   * @param pkg           the parsed rule set
   * @param source        the text it was parsed from (to place consequences on their lines)
   * @param languageLevel the DRL language level Drools builds with (its constraint parser is used)
   */
  public static List<Refusal> check(PackageDescr pkg, String source, LanguageLevelOption languageLevel) {
    DescrCheck check = new DescrCheck(languageLevel, source);
    check.run(pkg);
    return check.refusals;
  }

  private void run(PackageDescr pkg) {
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
      if (!g.getIdentifier().equals(AllowList.ACTIONS) || !g.getType().equals(AllowList.ACTIONS_TYPE)) {
        refuse(g, "global " + g.getType() + " " + g.getIdentifier(), "globals are not allowed; the service "
            + "provides 'actions'");
      }
    }
    pkg.getEnumDeclarations().forEach(e -> refuse(e, "declare enum " + e.getTypeName(), "enums are not allowed"));
    pkg.getTypeDeclarations().forEach(this::typeDeclaration);
    for (WindowDeclarationDescr w : pkg.getWindowDeclarations()) {
      context = w.getLine();
      annotations(w, "a window declaration");
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
        refuse(i, "import " + i.getTarget(), why(i.getTarget(), "only " + String.join(", ",
            AllowList.IMPORTS.stream().sorted().toList()) + " may be imported"));
      }
    }
    for (FunctionImportDescr i : pkg.getFunctionImports()) {
      refuse(i, "import function/static " + i.getTarget(), why(i.getTarget(), "function and static imports are not "
          + "allowed"));
    }
    pkg.getAccumulateImports().forEach(i -> refuse(i, "import accumulate " + i.getTarget(),
        "custom accumulate functions are not allowed"));
  }

  private void typeDeclaration(TypeDeclarationDescr t) {
    context = t.getLine();
    String name = t.getTypeName();
    boolean event = name.equals("Event") || name.equals("io.activityservice.rules.Event");
    if (!event && (name.contains(".") || AllowList.TYPES.contains(name)
        || AllowList.STATIC_METHODS.containsKey(name) || AllowList.denied(name) != null)) {
      refuse(t, "declare " + name, "a declared type needs a new simple name (it may not re-declare a class)");
    }
    if (t.isTrait()) {
      refuse(t, "declare trait " + name, "traits are not allowed");
    }
    if (!t.getSuperTypes().isEmpty()) {
      refuse(t, "declare " + name + " extends " + t.getSuperTypeName(), "declared types may not extend a class");
    }
    annotations(t, "declare " + name);
    for (TypeFieldDescr f : t.getFields().values()) {
      int line = f.getLine() > 0 ? f.getLine() : t.getLine();
      // Field names become property names in conditions, on any value: no field may read like a refused
      // getter (a field 'classLoader' would make $x.classLoader a property).
      String n = f.getFieldName();
      String getter = n.isEmpty() ? n : "get" + Character.toUpperCase(n.charAt(0)) + n.substring(1);
      String denied = AllowList.denied(n) != null ? AllowList.denied(n) : AllowList.denied(getter);
      if (denied != null) {
        refuse(f, "field " + n, "a field may not be named like something refused: " + denied);
      }
      code.typeName(f.getPattern().getObjectType(), line);
      if (f.getInitExpr() != null) {
        refuse(f, "field " + f.getFieldName() + " = " + f.getInitExpr(), "field initialisers are not allowed");
      }
      annotations(f, "field " + f.getFieldName());
    }
  }

  /** Only Drools' own type annotations, with plain values (no code: some annotation values are evaluated). */
  private void annotations(AnnotatedBaseDescr d, String where) {
    for (AnnotationDescr a : d.getAnnotations()) {
      boolean typeLevel = d instanceof TypeDeclarationDescr || d instanceof TypeFieldDescr;
      if (!typeLevel || !AllowList.DECLARE_ANNOTATIONS.contains(a.getName())) {
        refuse(a.getLine() > 0 ? a : d, "@" + a.getName(), "annotations are not allowed on " + where
            + (typeLevel ? " except @" + String.join(", @", AllowList.DECLARE_ANNOTATIONS.stream().sorted().toList())
            : ""));
        continue;
      }
      for (Object value : a.getValueMap().values()) {
        if (!(value instanceof String s) || !PLAIN_VALUE.matcher(s).matches()) {
          refuse(a.getLine() > 0 ? a : d, "@" + a.getName() + "(" + value + ")", "annotation values must be plain "
              + "names, numbers or durations");
        }
      }
    }
  }

  private void function(FunctionDescr f) {
    context = f.getLine();
    if (f.getDialect() != null && !f.getDialect().equals("java")) {
      refuse(f, "function " + f.getName() + " in dialect " + f.getDialect(), "only Java functions are allowed");
    }
    String denied = AllowList.denied(f.getName());
    if (denied != null) {
      refuse(f, "function " + f.getName(), "a function may not be named like something refused: " + denied);
    }
    code.typeName(f.getReturnType() == null ? "void" : f.getReturnType(), f.getLine());
    f.getParameterTypes().forEach(type -> code.typeName(type, f.getLine()));
    String body = f.getBody() == null ? "" : f.getBody();
    code.statements(body, firstLineOf(body, f.getLine()), new HashSet<>(f.getParameterNames()), f.getName());
  }

  /** Functions may call functions, but never back into themselves: no recursion, direct or indirect. */
  private void recursion(PackageDescr pkg) {
    Map<String, Set<String>> calls = code.functionCalls();
    for (FunctionDescr f : pkg.getFunctions()) {
      List<String> cycle = cycle(f.getName(), calls);
      if (cycle != null) {
        refuse(f, "recursion " + String.join(" -> ", cycle), "functions may not call themselves, directly or "
            + "through other functions");
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
    annotations(rule, "rules");
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
      refuse(rule, "then[" + String.join(", ", rule.getNamedConsequences().keySet()) + "]",
          "named consequences are not allowed");
    }
    if (rule.getConsequence() instanceof String consequence && !consequence.isBlank()) {
      int then = rule.getConsequenceLine() > 0 ? rule.getConsequenceLine() : rule.getLine();
      code.statements(consequence, firstLineOf(consequence, then), bindings, null);
    } else if (rule.getConsequence() != null && !(rule.getConsequence() instanceof String)) {
      refuse(rule, "consequence", "a consequence must be Java text");
    }
  }

  private void attribute(AttributeDescr a, Set<String> bindings) {
    String name = a.getName();
    String value = a.getValue() == null ? "" : a.getValue();
    if (!AllowList.RULE_ATTRIBUTES.contains(name)) {
      refuse(a, name, "attribute is not allowed");
      return;
    }
    switch (name) {
      case "dialect" -> {
        if (!unquote(value).equals("java")) {
          refuse(a, "dialect \"" + unquote(value) + "\"", "only the Java dialect is allowed: MVEL "
              + "consequences are not checked");
        }
      }
      case "salience", "enabled" -> {
        if (!LITERAL.matcher(value).matches()) {
          code.expression(value, a.getLine(), bindings, Dialect.MVEL);
        }
      }
      case "timer", "duration" -> {
        if (!TIMER.matcher(unquote(value)).matches()) {
          refuse(a, name + " (" + value + ")", "only a single literal delay is allowed, e.g. timer (int: 30s): "
              + "repeating and cron timers fire once per interval of event time");
        }
      }
      default -> {
        if (!PLAIN_VALUE.matcher(value).matches()) {
          refuse(a, name + " " + value, "attribute values must be plain strings, names or numbers");
        }
      }
    }
  }

  /** Names bound anywhere in the conditions (patterns, fields, accumulate results, query parameters). */
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

  /** and, or, not, exists, forall: groups of conditions (eval, accumulate and collect are conditional elements too). */
  private static boolean isGroup(BaseDescr d) {
    return d instanceof AndDescr || d instanceof OrDescr || d instanceof NotDescr || d instanceof ExistsDescr
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
    return constraints.computeIfAbsent(e, x -> {
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
      String content = String.valueOf(eval.getContent());
      code.expression(content, eval.getLine(), bindings, Dialect.JAVA);
    } else if (d instanceof AccumulateDescr acc) {
      accumulate(acc, bindings);
    } else if (d instanceof CollectDescr collect) {
      lhs(collect.getInputPattern(), bindings);
    } else if (isGroup(d)) {
      for (BaseDescr child : ((ConditionalElementDescr) d).getDescrs()) {
        lhs(child, bindings);
      }
    } else {
      refuse(d, d.getClass().getSimpleName().replace("Descr", ""), "this kind of condition is not allowed");
    }
  }

  private void pattern(PatternDescr p, Set<String> bindings) {
    String type = p.getObjectType();
    if (type == null || !(AllowList.PATTERN_TYPES.contains(type) || declaredTypes.contains(type))) {
      refuse(p, String.valueOf(type) + "( )", why(type, "patterns may match Event, Number, Object, String, the "
          + "boxed numbers, List, Set, Collection, Map and declared types only"));
    }
    annotations(p, "patterns");
    for (BehaviorDescr b : p.getBehaviors()) {
      String construct = "over " + b.getType() + ":" + b.getSubType() + "(" + String.join(", ", b.getParameters()) + ")";
      boolean window = "window".equals(b.getType()) && ("time".equals(b.getSubType()) || "length".equals(b.getSubType()));
      if (!window || b.getParameters().stream().anyMatch(x -> !PARAMETER.matcher(x).matches())) {
        refuse(p, construct, "only over window:time(..) and window:length(..) with literal values are allowed");
      } else if ("length".equals(b.getSubType()) && !shortWindow(b.getParameters())) {
        // Drools allocates a length window's buffer up front: window:length(200000000) is an OutOfMemoryError.
        refuse(p, construct, "a length window may hold at most " + AllowList.MAX_WINDOW_LENGTH + " events");
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
      if (from.getDataSource() instanceof MVELExprDescr expr) {
        code.expression(expr.getExpression(), p.getLine(), bindings, Dialect.MVEL);
      } else {
        refuse(p, "from " + from.getDataSource(), "this kind of from source is not allowed");
      }
    } else if (source instanceof AccumulateDescr || source instanceof CollectDescr) {
      lhs(source, bindings);
    } else if (source != null && !(source instanceof EntryPointDescr) && !(source instanceof WindowReferenceDescr)) {
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
    if (!acc.isExternalFunction()) {
      refuse(acc, "accumulate( .., init(..) action(..) result(..) )", "inline accumulate code is not allowed; use "
          + "count, sum, average, min, max, collectList or collectSet");
    }
    for (AccumulateFunctionCallDescr f : acc.getFunctions()) {
      if (!AllowList.ACCUMULATE_FUNCTIONS.contains(f.getFunction())) {
        refusals.add(new Refusal(line, f.getFunction() + "(..)", "only Drools' built-in accumulate functions "
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
        refuse(in, "matches " + r.getRight(), "the regular expression of 'matches' must be a string literal");
      }
      constraintPart(r.getLeft(), in, bindings);
      constraintPart(r.getRight(), in, bindings);
    } else if (d instanceof AtomicExprDescr a) {
      code.expression(a.getExpression(), lineIn(in, a.getExpression()), bindings, Dialect.MVEL);
    } else if (d instanceof BindingDescr b) {
      String denied = AllowList.denied(b.getVariable());
      if (denied != null) {
        refuse(in, b.getVariable() + " :", "a binding may not be named like something refused: " + denied);
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

  /** The line where a code block starts: found in the source from its descr's line on, else that line. */
  private int firstLineOf(String text, int fromLine) {
    int index = 0;
    for (int line = 1; line < fromLine && index >= 0; line++) {
      index = source.indexOf('\n', index);
      index = index < 0 ? -1 : index + 1;
    }
    int at = index < 0 ? -1 : source.indexOf(text, index);
    return at < 0 ? fromLine : DrlScanner.lineOf(source, at);
  }

  private void refuse(BaseDescr at, String construct, String reason) {
    refusals.add(new Refusal(at == null || at.getLine() <= 0 ? context : at.getLine(), construct, reason));
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
    return t.length() >= 2 && (t.startsWith("\"") && t.endsWith("\"") || t.startsWith("'") && t.endsWith("'"))
        ? t.substring(1, t.length() - 1) : t;
  }
}
