package io.activityservice.rules.compile.internal;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.Problem;
import com.github.javaparser.ast.Modifier;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.NodeList;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.ArrayAccessExpr;
import com.github.javaparser.ast.expr.ArrayCreationExpr;
import com.github.javaparser.ast.expr.ArrayInitializerExpr;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.BinaryExpr;
import com.github.javaparser.ast.expr.BooleanLiteralExpr;
import com.github.javaparser.ast.expr.CastExpr;
import com.github.javaparser.ast.expr.CharLiteralExpr;
import com.github.javaparser.ast.expr.ClassExpr;
import com.github.javaparser.ast.expr.ConditionalExpr;
import com.github.javaparser.ast.expr.DoubleLiteralExpr;
import com.github.javaparser.ast.expr.EnclosedExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.InstanceOfExpr;
import com.github.javaparser.ast.expr.IntegerLiteralExpr;
import com.github.javaparser.ast.expr.LambdaExpr;
import com.github.javaparser.ast.expr.LongLiteralExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.MethodReferenceExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.NullLiteralExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;
import com.github.javaparser.ast.expr.StringLiteralExpr;
import com.github.javaparser.ast.expr.TextBlockLiteralExpr;
import com.github.javaparser.ast.expr.ThisExpr;
import com.github.javaparser.ast.expr.UnaryExpr;
import com.github.javaparser.ast.expr.VariableDeclarationExpr;
import com.github.javaparser.ast.stmt.BlockStmt;
import com.github.javaparser.ast.stmt.DoStmt;
import com.github.javaparser.ast.stmt.EmptyStmt;
import com.github.javaparser.ast.stmt.ExpressionStmt;
import com.github.javaparser.ast.stmt.ForEachStmt;
import com.github.javaparser.ast.stmt.ForStmt;
import com.github.javaparser.ast.stmt.IfStmt;
import com.github.javaparser.ast.stmt.ReturnStmt;
import com.github.javaparser.ast.stmt.Statement;
import com.github.javaparser.ast.stmt.WhileStmt;
import com.github.javaparser.ast.type.ClassOrInterfaceType;
import com.github.javaparser.ast.type.PrimitiveType;
import com.github.javaparser.ast.type.Type;
import com.github.javaparser.ast.type.VarType;
import com.github.javaparser.ast.type.VoidType;
import com.github.javaparser.ast.type.WildcardType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the Java and MVEL text inside DRL (consequences, function bodies, {@code eval}s,
 * constraint operands, {@code from} sources, accumulate arguments, dynamic attributes) against the
 * {@link AllowList}. The text is parsed with JavaParser and the tree is walked node by node; a node
 * kind that is not handled here is refused, so new syntax fails closed. Text JavaParser cannot
 * parse is refused too: MVEL-only syntax ({@code modify} blocks, {@code .?}, inline maps) has no
 * place in a guarded rule.
 */
public final class JavaCodeCheck {

  /**
   * How names are read: Java (consequences, functions, eval) or MVEL (conditions, from,
   * attributes).
   */
  public enum Dialect {
    /** Plain Java: no property navigation, no {@code this}. */
    JAVA,
    /**
     * MVEL as Drools uses it in conditions: bare property names and {@code $e.data} navigation,
     * {@code this}.
     */
    MVEL
  }

  private static final Pattern FORMAT_SPEC =
      Pattern.compile("%(?:\\d+\\$)?[-#+ 0,(<]*(\\d+)?(?:\\.(\\d+))?");

  private final Set<String> functions;
  private final Set<String> declaredTypes;
  private final Set<String> declaredFields;
  private final List<Refusal> refusals;
  private final Map<String, Set<String>> calls = new HashMap<>();
  private final List<ActionSite> actions = new ArrayList<>();
  // One parser per check of a rule set (JavaParser is not thread-safe; a check runs on one thread).
  private final JavaParser parser = newParser();

  /**
   * @param functions names of the functions the DRL declares
   * @param declaredTypes names of the types the DRL declares
   * @param declaredFields field names of those types (properties in conditions)
   * @param refusals where refusals are added
   */
  public JavaCodeCheck(
      Set<String> functions,
      Set<String> declaredTypes,
      Set<String> declaredFields,
      List<Refusal> refusals) {
    this.functions = functions;
    this.declaredTypes = declaredTypes;
    this.declaredFields = declaredFields;
    this.refusals = refusals;
  }

  /**
   * The {@code actions.run(..)} calls found in the code checked (to know what a rule set emits).
   */
  public List<ActionSite> actionSites() {
    return actions;
  }

  /** Which declared functions each function calls (for the recursion check). */
  public Map<String, Set<String>> functionCalls() {
    return calls;
  }

  /**
   * Checks statements: a consequence, or the body of the function {@code function} (null for a
   * consequence).
   *
   * @param firstLine the compiled-source line of the code's first line
   * @param variables the names in scope: bindings of the rule, or the function's parameters
   */
  public void statements(String code, int firstLine, Set<String> variables, String function) {
    ParseResult<BlockStmt> parsed = parser.parseBlock("{" + code + "\n}");
    if (!parsed.isSuccessful() || parsed.getResult().isEmpty()) {
      unparsable(code, firstLine, parsed.getProblems());
      return;
    }
    Scope scope = new Scope(Dialect.JAVA, firstLine, variables, function);
    statement(parsed.getResult().get(), scope);
  }

  /** Checks one expression. */
  public void expression(String code, int firstLine, Set<String> variables, Dialect dialect) {
    String text = dialect == Dialect.MVEL ? DrlScanner.singleQuotesToDouble(code) : code;
    ParseResult<Expression> parsed = parser.parseExpression(text);
    if (!parsed.isSuccessful() || parsed.getResult().isEmpty()) {
      unparsable(code, firstLine, parsed.getProblems());
      return;
    }
    expression(parsed.getResult().get(), new Scope(dialect, firstLine, variables, null));
  }

  /**
   * Checks a type written in DRL outside code: a function's parameter or return type, a declared
   * field.
   */
  public void typeName(String typeName, int line) {
    ParseResult<Type> parsed = parser.parseType(typeName);
    if (!parsed.isSuccessful() || parsed.getResult().isEmpty()) {
      refusals.add(new Refusal(line, typeName, "not a type name"));
      return;
    }
    type(parsed.getResult().get(), new Scope(Dialect.JAVA, line, Set.of(), null));
  }

  private static JavaParser newParser() {
    // Unicode escapes were refused before parsing; never let the parser decode them either.
    return new JavaParser(
        new ParserConfiguration()
            .setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17)
            .setPreprocessUnicodeEscapes(false)
            .setAttributeComments(false));
  }

  private void unparsable(String code, int firstLine, List<Problem> problems) {
    int line = firstLine;
    String detail = "";
    if (!problems.isEmpty()) {
      Problem p = problems.get(0);
      line =
          p.getLocation()
              .flatMap(l -> l.getBegin().getRange())
              .map(r -> firstLine + r.begin.line - 1)
              .orElse(firstLine);
      detail = p.getMessage().lines().findFirst().orElse("");
      detail = detail.length() > 160 ? detail.substring(0, 160) + "..." : detail;
    }
    // Name what the parser stumbled on when it is a known trick, and every refused name in the
    // text: the
    // structural checks cannot look inside code that does not parse.
    boolean named = false;
    for (DrlScanner.Identifier id : DrlScanner.identifiers(code)) {
      int at = firstLine + DrlScanner.lineOf(code, id.index()) - 1;
      String hint =
          switch (id.name()) {
            case "modify", "with" ->
                "MVEL/Drools block syntax is not allowed; rules may not change facts";
            case "static" ->
                "static members and initialisers are not allowed; a consequence is a block of statements";
            case "class" ->
                "classes and class literals (MVEL .class navigation included) are not allowed";
            default -> AllowList.DENIED.get(id.name());
          };
      if (hint != null) {
        String construct =
            switch (id.name()) {
              case "modify", "with" -> id.name() + "(..) { }";
              case "static" -> "static { }";
              case "class" -> ".class";
              default -> id.name();
            };
        refusals.add(new Refusal(at, construct, hint));
        named = true;
      }
    }
    if (named) {
      return;
    }
    refusals.add(
        new Refusal(
            line,
            "code that is not plain Java",
            "only plain Java expressions and statements are allowed (no MVEL-only syntax): "
                + detail));
  }

  /** Where names resolve. */
  private static final class Scope {
    final Dialect dialect;
    final int firstLine;
    final Set<String> variables;
    final String function;

    Scope(Dialect dialect, int firstLine, Set<String> variables, String function) {
      this.dialect = dialect;
      this.firstLine = firstLine;
      this.variables = new HashSet<>(variables);
      this.function = function;
    }
  }

  private void refuse(Node at, Scope scope, String construct, String reason) {
    int line = at.getBegin().map(p -> scope.firstLine + p.line - 1).orElse(scope.firstLine);
    refusals.add(new Refusal(line, shorten(construct), reason));
  }

  private static String shorten(String s) {
    String one = s.replaceAll("\\s+", " ");
    return one.length() > 80 ? one.substring(0, 77) + "..." : one;
  }

  private static String reasonFor(String name, String otherwise) {
    String denied = AllowList.denied(name);
    return denied != null ? denied : otherwise;
  }

  // ---- statements

  private void statement(Statement s, Scope scope) {
    if (s instanceof BlockStmt b) {
      b.getStatements().forEach(x -> statement(x, scope));
    } else if (s instanceof ExpressionStmt e) {
      expression(e.getExpression(), scope);
    } else if (s instanceof IfStmt i) {
      expression(i.getCondition(), scope);
      statement(i.getThenStmt(), scope);
      i.getElseStmt().ifPresent(x -> statement(x, scope));
    } else if (s instanceof ReturnStmt r) {
      r.getExpression().ifPresent(x -> expression(x, scope));
    } else if (s instanceof EmptyStmt) {
      return;
    } else if (s instanceof WhileStmt
        || s instanceof DoStmt
        || s instanceof ForStmt
        || s instanceof ForEachStmt) {
      String kind = s instanceof WhileStmt ? "while" : s instanceof DoStmt ? "do" : "for";
      refuse(
          s,
          scope,
          kind + " loop",
          "loops are not allowed: a rule runs once per match, on the engine's thread");
    } else {
      refuse(
          s,
          scope,
          statementName(s),
          "only expressions, local variables, if/else and return are allowed");
    }
  }

  private static String statementName(Statement s) {
    String simple = s.getClass().getSimpleName().replace("Stmt", "");
    return switch (simple) {
      case "Try" -> "try";
      case "Throw" -> "throw";
      case "Synchronized" -> "synchronized";
      case "Switch" -> "switch";
      case "LocalClassDeclaration" -> "local class";
      case "LocalRecordDeclaration" -> "local record";
      case "Labeled" -> "label";
      case "Break" -> "break";
      case "Continue" -> "continue";
      case "Assert" -> "assert";
      default -> simple;
    };
  }

  // ---- expressions

  private void expression(Expression e, Scope scope) {
    if (e instanceof StringLiteralExpr
        || e instanceof IntegerLiteralExpr
        || e instanceof LongLiteralExpr
        || e instanceof DoubleLiteralExpr
        || e instanceof BooleanLiteralExpr
        || e instanceof NullLiteralExpr
        || e instanceof CharLiteralExpr) {
      return;
    }
    if (e instanceof NameExpr n) {
      name(n, scope);
    } else if (e instanceof MethodCallExpr m) {
      call(m, scope);
    } else if (e instanceof FieldAccessExpr f) {
      field(f, scope);
    } else if (e instanceof BinaryExpr b) {
      expression(b.getLeft(), scope);
      expression(b.getRight(), scope);
    } else if (e instanceof UnaryExpr u) {
      if (scope.dialect == Dialect.MVEL && (u.isPrefix() || u.isPostfix())) {
        refuse(u, scope, u.toString(), "conditions may not change variables");
      }
      expression(u.getExpression(), scope);
    } else if (e instanceof EnclosedExpr en) {
      expression(en.getInner(), scope);
    } else if (e instanceof ConditionalExpr c) {
      expression(c.getCondition(), scope);
      expression(c.getThenExpr(), scope);
      expression(c.getElseExpr(), scope);
    } else if (e instanceof CastExpr c) {
      type(c.getType(), scope);
      expression(c.getExpression(), scope);
    } else if (e instanceof InstanceOfExpr i) {
      if (i.getPattern().isPresent()) {
        refuse(i, scope, i.toString(), "instanceof with a pattern variable is not allowed");
      }
      type(i.getType(), scope);
      expression(i.getExpression(), scope);
    } else if (e instanceof ThisExpr t) {
      if (scope.dialect != Dialect.MVEL || t.getTypeName().isPresent()) {
        refuse(
            t, scope, t.toString(), "'this' is only allowed in conditions, for the pattern's fact");
      }
    } else if (e instanceof AssignExpr a) {
      assign(a, scope);
    } else if (e instanceof VariableDeclarationExpr v) {
      declare(v, scope);
    } else {
      refuseExpression(e, scope);
    }
  }

  private void refuseExpression(Expression e, Scope scope) {
    if (e instanceof ObjectCreationExpr o) {
      String type = o.getType().getNameAsString();
      String construct =
          "new " + o.getType() + "(..)" + (o.getAnonymousClassBody().isPresent() ? " { }" : "");
      refuse(
          o,
          scope,
          construct,
          reasonFor(type, "creating objects is not allowed; use Map.of, List.of or Set.of"));
    } else if (e instanceof LambdaExpr) {
      refuse(e, scope, "lambda " + e, "lambdas are not allowed");
    } else if (e instanceof MethodReferenceExpr) {
      refuse(e, scope, "method reference " + e, "method references are not allowed");
    } else if (e instanceof ClassExpr) {
      refuse(e, scope, e.toString(), "class literals (reflection) are not allowed");
    } else if (e instanceof ArrayCreationExpr || e instanceof ArrayInitializerExpr) {
      refuse(e, scope, "array " + e, "arrays are not allowed");
    } else if (e instanceof ArrayAccessExpr) {
      refuse(e, scope, e.toString(), "indexing with [..] is not allowed; use get(..)");
    } else if (e instanceof TextBlockLiteralExpr) {
      refuse(e, scope, "text block", "text blocks are not allowed");
    } else {
      refuse(
          e,
          scope,
          e.toString(),
          e.getClass().getSimpleName().replace("Expr", "") + " is not allowed");
    }
  }

  private void name(NameExpr n, Scope scope) {
    String name = n.getNameAsString();
    if (scope.variables.contains(name) || isProperty(name, scope)) {
      return;
    }
    if (name.equals(AllowList.ACTIONS)) {
      refuse(n, scope, name, "the actions global may only be used as actions.run(handler, params)");
    } else if (AllowList.STATIC_METHODS.containsKey(name)) {
      refuse(n, scope, name, "a class may only be used to call its allowed static methods");
    } else {
      refuse(
          n,
          scope,
          name,
          reasonFor(
              name,
              scope.dialect == Dialect.MVEL
                  ? "unknown name: not a binding or a property of Event or Number"
                  : "unknown name: not a binding, local variable or parameter"));
    }
  }

  private boolean isProperty(String name, Scope scope) {
    return scope.dialect == Dialect.MVEL
        && (AllowList.PROPERTIES.contains(name) || declaredFields.contains(name));
  }

  private void call(MethodCallExpr m, Scope scope) {
    m.getTypeArguments().ifPresent(types -> types.forEach(t -> type(t, scope)));
    String name = m.getNameAsString();
    Optional<Expression> receiver = m.getScope();
    if (receiver.isEmpty()) {
      if (functions.contains(name)) {
        if (scope.function != null) {
          calls.computeIfAbsent(scope.function, f -> new HashSet<>()).add(name);
        }
      } else if (!(scope.dialect == Dialect.MVEL && AllowList.INSTANCE_METHODS.contains(name))) {
        refuse(
            m,
            scope,
            name + "(..)",
            reasonFor(
                name,
                "unknown function: only functions declared in the DRL may be called without a receiver"));
      }
    } else {
      receiver(m, receiver.get(), name, scope);
    }
    m.getArguments().forEach(a -> expression(a, scope));
  }

  private void receiver(MethodCallExpr m, Expression receiver, String name, Scope scope) {
    String dotted = dotted(receiver);
    if (receiver instanceof NameExpr n
        && !scope.variables.contains(n.getNameAsString())
        && !isProperty(n.getNameAsString(), scope)) {
      String owner = n.getNameAsString();
      if (owner.equals(AllowList.ACTIONS)) {
        if (scope.dialect == Dialect.MVEL) {
          refuse(
              m,
              scope,
              "actions." + name + "(..)",
              "actions may only be run in consequences, not in conditions");
        } else if (!name.equals("run")) {
          refuse(
              m,
              scope,
              "actions." + name + "(..)",
              "the actions global only has run(handler, params)");
        } else {
          actions.add(actionSite(m, scope));
        }
        return;
      }
      Set<String> allowed = AllowList.STATIC_METHODS.get(owner);
      if (allowed == null) {
        refuse(
            m,
            scope,
            owner + "." + name + "(..)",
            reasonFor(
                owner,
                reasonFor(
                    name,
                    "class '"
                        + owner
                        + "' is not on the allow-list (Map, List, Set, Math, String and the boxed numbers are)")));
      } else if (!allowed.contains("*") && !allowed.contains(name)) {
        refuse(
            m,
            scope,
            owner + "." + name + "(..)",
            reasonFor(name, "method is not on the allow-list for " + owner));
      } else if (owner.equals("String") && name.equals("format")) {
        format(m, scope);
      }
      return;
    }
    if (dotted != null && !rootKnown(dotted, scope)) {
      refuse(m, scope, dotted + "." + name + "(..)", qualifiedReason(dotted, scope));
      return;
    }
    expression(receiver, scope);
    if (!AllowList.INSTANCE_METHODS.contains(name)) {
      refuse(m, scope, name + "(..)", reasonFor(name, "method is not on the allow-list"));
    }
  }

  /**
   * What an {@code actions.run(handler, params)} call shows: its handler and its literal
   * parameters.
   */
  private ActionSite actionSite(MethodCallExpr m, Scope scope) {
    int line = m.getBegin().map(p -> scope.firstLine + p.line - 1).orElse(scope.firstLine);
    NodeList<Expression> args = m.getArguments();
    String handler =
        !args.isEmpty() && args.get(0) instanceof StringLiteralExpr s ? s.asString() : null;
    Map<String, String> params = args.size() == 2 ? literalMap(args.get(1), scope) : null;
    return new ActionSite(line, handler, params);
  }

  /**
   * The literal keys (and literal string values) of a {@code Map.of(..)} or {@code
   * Map.ofEntries(..)}, or null.
   */
  private static Map<String, String> literalMap(Expression e, Scope scope) {
    while (e instanceof EnclosedExpr en) {
      e = en.getInner();
    }
    if (!(e instanceof MethodCallExpr call) || !isMapClass(call.getScope().orElse(null), scope)) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    NodeList<Expression> args = call.getArguments();
    if (call.getNameAsString().equals("of") && args.size() % 2 == 0) {
      for (int i = 0; i < args.size(); i += 2) {
        if (!put(out, args.get(i), args.get(i + 1))) {
          return null;
        }
      }
    } else if (call.getNameAsString().equals("ofEntries")) {
      for (Expression entry : args) {
        if (!(entry instanceof MethodCallExpr en)
            || !en.getNameAsString().equals("entry")
            || !isMapClass(en.getScope().orElse(null), scope)
            || en.getArguments().size() != 2
            || !put(out, en.getArguments().get(0), en.getArguments().get(1))) {
          return null;
        }
      }
    } else {
      return null;
    }
    return Collections.unmodifiableMap(out);
  }

  private static boolean isMapClass(Expression e, Scope scope) {
    return e instanceof NameExpr n
        && n.getNameAsString().equals("Map")
        && !scope.variables.contains("Map");
  }

  private static boolean put(Map<String, String> out, Expression key, Expression value) {
    if (!(key instanceof StringLiteralExpr k) || out.containsKey(k.asString())) {
      return false;
    }
    out.put(k.asString(), value instanceof StringLiteralExpr v ? v.asString() : null);
    return true;
  }

  /**
   * {@code String.format} with a literal pattern and narrow fields only: {@code %999999999d} is a
   * memory bomb.
   */
  private void format(MethodCallExpr m, Scope scope) {
    NodeList<Expression> args = m.getArguments();
    if (args.isEmpty() || !(args.get(0) instanceof StringLiteralExpr pattern)) {
      refuse(m, scope, "String.format(..)", "the format must be a string literal");
      return;
    }
    Matcher spec = FORMAT_SPEC.matcher(pattern.getValue());
    while (spec.find()) {
      for (int g = 1; g <= 2; g++) {
        String n = spec.group(g);
        if (n != null && (n.length() > 3 || Integer.parseInt(n) > AllowList.MAX_FORMAT_WIDTH)) {
          refuse(
              m,
              scope,
              "String.format(\"" + spec.group() + "...\")",
              "format widths and precisions above "
                  + AllowList.MAX_FORMAT_WIDTH
                  + " are not allowed");
          return;
        }
      }
    }
  }

  private void field(FieldAccessExpr f, Scope scope) {
    String fieldName = f.getNameAsString();
    if (f.getScope() instanceof NameExpr n
        && !scope.variables.contains(n.getNameAsString())
        && AllowList.STATIC_FIELDS.containsKey(n.getNameAsString())) {
      if (!AllowList.STATIC_FIELDS.get(n.getNameAsString()).contains(fieldName)) {
        refuse(f, scope, f.toString(), "constant is not on the allow-list");
      }
      return;
    }
    String dotted = dotted(f);
    if (dotted != null && !rootKnown(dotted, scope)) {
      refuse(f, scope, dotted, qualifiedReason(dotted, scope));
      return;
    }
    if (scope.dialect == Dialect.JAVA) {
      refuse(
          f,
          scope,
          f.toString(),
          reasonFor(fieldName, "field access is not allowed; call the getter"));
      return;
    }
    expression(f.getScope(), scope);
    if (!AllowList.PROPERTIES.contains(fieldName) && !declaredFields.contains(fieldName)) {
      refuse(
          f,
          scope,
          "." + fieldName,
          reasonFor(
              fieldName,
              "property is not on the allow-list (type, id, source, "
                  + "subject, time, data, intValue, doubleValue, ...)"));
    }
  }

  private boolean rootKnown(String dotted, Scope scope) {
    String root = dotted.substring(0, dotted.contains(".") ? dotted.indexOf('.') : dotted.length());
    return scope.variables.contains(root) || isProperty(root, scope);
  }

  /**
   * In conditions a dotted name may also be a chain of properties: say which first name is unknown.
   */
  private static String qualifiedReason(String dotted, Scope scope) {
    String reason = qualifiedReason(dotted);
    String root = dotted.contains(".") ? dotted.substring(0, dotted.indexOf('.')) : dotted;
    if (scope.dialect == Dialect.MVEL
        && AllowList.denied(root) == null
        && reason.startsWith("fully qualified")) {
      return "'"
          + root
          + "' is neither a binding nor a property on the allow-list (type, id, source, subject, time, "
          + "data, ...), and fully qualified class names are not allowed";
    }
    return reason;
  }

  private static String qualifiedReason(String dotted) {
    for (String part : dotted.split("\\.")) {
      String denied = AllowList.denied(part);
      if (denied != null) {
        return denied + " (fully qualified names are not allowed either)";
      }
    }
    return Character.isLowerCase(dotted.charAt(0)) && dotted.contains(".")
        ? "fully qualified class names are not allowed"
        : "unknown name: not a binding, variable or allowed class";
  }

  /** {@code a.b.c} for a chain of names, else null. */
  private static String dotted(Expression e) {
    if (e instanceof NameExpr n) {
      return n.getNameAsString();
    }
    if (e instanceof FieldAccessExpr f) {
      String scope = dotted(f.getScope());
      return scope == null ? null : scope + "." + f.getNameAsString();
    }
    return null;
  }

  private void assign(AssignExpr a, Scope scope) {
    if (scope.dialect == Dialect.MVEL) {
      refuse(a, scope, a.toString(), "conditions may not assign");
      return;
    }
    if (!(a.getTarget() instanceof NameExpr target)
        || !scope.variables.contains(target.getNameAsString())) {
      refuse(
          a,
          scope,
          a.getTarget() + " " + a.getOperator().asString() + " ..",
          "only local variables may be assigned");
    }
    expression(a.getValue(), scope);
  }

  private void declare(VariableDeclarationExpr v, Scope scope) {
    if (scope.dialect == Dialect.MVEL) {
      refuse(v, scope, v.toString(), "conditions may not declare variables");
      return;
    }
    if (!v.getAnnotations().isEmpty()) {
      refuse(v, scope, v.getAnnotations().get(0).toString(), "annotations are not allowed");
    }
    for (Modifier mod : v.getModifiers()) {
      if (mod.getKeyword() != Modifier.Keyword.FINAL) {
        refuse(v, scope, mod.getKeyword().asString(), "only 'final' may modify a local variable");
      }
    }
    for (VariableDeclarator d : v.getVariables()) {
      if (!(d.getType() instanceof VarType)) {
        type(d.getType(), scope);
      }
      String denied = AllowList.denied(d.getNameAsString());
      if (denied != null) {
        refuse(
            d,
            scope,
            d.getNameAsString(),
            "a variable may not be named like something refused: " + denied);
      }
      scope.variables.add(d.getNameAsString());
      d.getInitializer().ifPresent(init -> expression(init, scope));
    }
  }

  // ---- types

  private void type(Type t, Scope scope) {
    if (t instanceof PrimitiveType || t instanceof VoidType) {
      return;
    }
    if (t instanceof VarType) {
      return;
    }
    if (t instanceof ClassOrInterfaceType c) {
      if (c.getScope().isPresent()) {
        refuse(t, scope, c.toString(), qualifiedReason(c.asString()));
        return;
      }
      String name = c.getNameAsString();
      if (!AllowList.TYPES.contains(name) && !declaredTypes.contains(name)) {
        refuse(
            t,
            scope,
            name,
            reasonFor(
                name,
                "type is not on the allow-list (Event, String, Number, the boxed "
                    + "numbers, Map, List, Set, Collection, Object, primitives, declared types)"));
      }
      c.getTypeArguments().ifPresent(args -> args.forEach(a -> type(a, scope)));
    } else if (t instanceof WildcardType w) {
      w.getExtendedType().ifPresent(x -> type(x, scope));
      w.getSuperType().ifPresent(x -> type(x, scope));
    } else {
      refuse(t, scope, t.toString(), "arrays and other type forms are not allowed");
    }
  }
}
