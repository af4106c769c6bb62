package io.activityservice.detector.esper.internal;

import com.espertech.esper.common.client.soda.AnnotationPart;
import com.espertech.esper.common.client.soda.ArithmaticExpression;
import com.espertech.esper.common.client.soda.ArrayExpression;
import com.espertech.esper.common.client.soda.AvedevProjectionExpression;
import com.espertech.esper.common.client.soda.AvgProjectionExpression;
import com.espertech.esper.common.client.soda.BetweenExpression;
import com.espertech.esper.common.client.soda.BitwiseOpExpression;
import com.espertech.esper.common.client.soda.CaseSwitchExpression;
import com.espertech.esper.common.client.soda.CaseWhenThenExpression;
import com.espertech.esper.common.client.soda.CastExpression;
import com.espertech.esper.common.client.soda.CoalesceExpression;
import com.espertech.esper.common.client.soda.CompareListExpression;
import com.espertech.esper.common.client.soda.ConcatExpression;
import com.espertech.esper.common.client.soda.Conjunction;
import com.espertech.esper.common.client.soda.ConstantExpression;
import com.espertech.esper.common.client.soda.ContainedEventSelect;
import com.espertech.esper.common.client.soda.CountEverProjectionExpression;
import com.espertech.esper.common.client.soda.CountProjectionExpression;
import com.espertech.esper.common.client.soda.CountStarProjectionExpression;
import com.espertech.esper.common.client.soda.CrontabFrequencyExpression;
import com.espertech.esper.common.client.soda.CrontabParameterExpression;
import com.espertech.esper.common.client.soda.CrontabParameterSetExpression;
import com.espertech.esper.common.client.soda.CrontabRangeExpression;
import com.espertech.esper.common.client.soda.CurrentEvaluationContextExpression;
import com.espertech.esper.common.client.soda.CurrentTimestampExpression;
import com.espertech.esper.common.client.soda.Disjunction;
import com.espertech.esper.common.client.soda.DotExpression;
import com.espertech.esper.common.client.soda.DotExpressionItem;
import com.espertech.esper.common.client.soda.DotExpressionItemArray;
import com.espertech.esper.common.client.soda.DotExpressionItemCall;
import com.espertech.esper.common.client.soda.DotExpressionItemName;
import com.espertech.esper.common.client.soda.EPStatementObjectModel;
import com.espertech.esper.common.client.soda.Expression;
import com.espertech.esper.common.client.soda.ExpressionPrecedenceEnum;
import com.espertech.esper.common.client.soda.Filter;
import com.espertech.esper.common.client.soda.FilterStream;
import com.espertech.esper.common.client.soda.FirstEverProjectionExpression;
import com.espertech.esper.common.client.soda.FirstProjectionExpression;
import com.espertech.esper.common.client.soda.FromClause;
import com.espertech.esper.common.client.soda.GroupByClauseExpression;
import com.espertech.esper.common.client.soda.GroupByClauseExpressionCombination;
import com.espertech.esper.common.client.soda.GroupByClauseExpressionGroupingSet;
import com.espertech.esper.common.client.soda.GroupByClauseExpressionRollupOrCube;
import com.espertech.esper.common.client.soda.GroupByClauseExpressionSingle;
import com.espertech.esper.common.client.soda.GroupingExpression;
import com.espertech.esper.common.client.soda.GroupingIdExpression;
import com.espertech.esper.common.client.soda.IStreamBuiltinExpression;
import com.espertech.esper.common.client.soda.InExpression;
import com.espertech.esper.common.client.soda.InstanceOfExpression;
import com.espertech.esper.common.client.soda.LambdaExpression;
import com.espertech.esper.common.client.soda.LastEverProjectionExpression;
import com.espertech.esper.common.client.soda.LastProjectionExpression;
import com.espertech.esper.common.client.soda.LikeExpression;
import com.espertech.esper.common.client.soda.MatchRecognizeClause;
import com.espertech.esper.common.client.soda.MatchRecognizeDefine;
import com.espertech.esper.common.client.soda.MatchRecognizeRegEx;
import com.espertech.esper.common.client.soda.MatchRecognizeRegExAlteration;
import com.espertech.esper.common.client.soda.MatchRecognizeRegExAtom;
import com.espertech.esper.common.client.soda.MatchRecognizeRegExConcatenation;
import com.espertech.esper.common.client.soda.MatchRecognizeRegExNested;
import com.espertech.esper.common.client.soda.MatchRecognizeRegExRepeat;
import com.espertech.esper.common.client.soda.MaxProjectionExpression;
import com.espertech.esper.common.client.soda.MaxRowExpression;
import com.espertech.esper.common.client.soda.MedianProjectionExpression;
import com.espertech.esper.common.client.soda.MinProjectionExpression;
import com.espertech.esper.common.client.soda.MinRowExpression;
import com.espertech.esper.common.client.soda.NamedParameterExpression;
import com.espertech.esper.common.client.soda.NewInstanceOperatorExpression;
import com.espertech.esper.common.client.soda.NewOperatorExpression;
import com.espertech.esper.common.client.soda.NotExpression;
import com.espertech.esper.common.client.soda.OrderByElement;
import com.espertech.esper.common.client.soda.OrderedObjectParamExpression;
import com.espertech.esper.common.client.soda.OuterJoinQualifier;
import com.espertech.esper.common.client.soda.OutputLimitClause;
import com.espertech.esper.common.client.soda.OutputLimitUnit;
import com.espertech.esper.common.client.soda.PatternAndExpr;
import com.espertech.esper.common.client.soda.PatternEveryDistinctExpr;
import com.espertech.esper.common.client.soda.PatternEveryExpr;
import com.espertech.esper.common.client.soda.PatternExpr;
import com.espertech.esper.common.client.soda.PatternFilterExpr;
import com.espertech.esper.common.client.soda.PatternFollowedByExpr;
import com.espertech.esper.common.client.soda.PatternGuardExpr;
import com.espertech.esper.common.client.soda.PatternMatchUntilExpr;
import com.espertech.esper.common.client.soda.PatternNotExpr;
import com.espertech.esper.common.client.soda.PatternObserverExpr;
import com.espertech.esper.common.client.soda.PatternOrExpr;
import com.espertech.esper.common.client.soda.PatternStream;
import com.espertech.esper.common.client.soda.PlugInProjectionExpression;
import com.espertech.esper.common.client.soda.PreviousExpression;
import com.espertech.esper.common.client.soda.PriorExpression;
import com.espertech.esper.common.client.soda.ProjectedStream;
import com.espertech.esper.common.client.soda.PropertyExistsExpression;
import com.espertech.esper.common.client.soda.PropertyValueExpression;
import com.espertech.esper.common.client.soda.PropertyValueExpressionPair;
import com.espertech.esper.common.client.soda.RegExpExpression;
import com.espertech.esper.common.client.soda.RelationalOpExpression;
import com.espertech.esper.common.client.soda.RowLimitClause;
import com.espertech.esper.common.client.soda.SelectClause;
import com.espertech.esper.common.client.soda.SelectClauseElement;
import com.espertech.esper.common.client.soda.SelectClauseExpression;
import com.espertech.esper.common.client.soda.SelectClauseStreamWildcard;
import com.espertech.esper.common.client.soda.SelectClauseWildcard;
import com.espertech.esper.common.client.soda.StddevProjectionExpression;
import com.espertech.esper.common.client.soda.Stream;
import com.espertech.esper.common.client.soda.StreamWildcardExpression;
import com.espertech.esper.common.client.soda.SubqueryExistsExpression;
import com.espertech.esper.common.client.soda.SubqueryExpression;
import com.espertech.esper.common.client.soda.SubqueryInExpression;
import com.espertech.esper.common.client.soda.SubqueryQualifiedExpression;
import com.espertech.esper.common.client.soda.SumProjectionExpression;
import com.espertech.esper.common.client.soda.TimePeriodExpression;
import com.espertech.esper.common.client.soda.TypeOfExpression;
import com.espertech.esper.common.client.soda.View;
import com.espertech.esper.common.client.soda.WildcardExpression;
import com.espertech.esper.common.client.soda.WindowProjectionExpression;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Walks one statement's object model ({@link EPStatementObjectModel}) and throws a {@link Refusal}
 * at the first construct that is not allowed. It walks every expression Esper will evaluate:
 * select, where, group by, having, order by, output rate (incl. {@code output at} crontab
 * parameters and {@code when}), data window and view parameters, pattern filters, guards and
 * observers with their parameters, pattern annotations, match_recognize partitions, defines,
 * measures, interval and the pattern's repeats, contained-event selections, joins and subqueries.
 * Fail-closed twice over: a clause, stream, pattern or expression class it does not know is
 * refused, and so is any part of a model object this walk does not read ({@link ModelMembers}), so
 * constructs added by a later Esper version are refused until they are reviewed here. The from
 * clause is walked first, so stream names and pattern tags are known when expressions use them.
 */
final class EplModelCheck {

  /** A refused construct: the message, and the word that locates it in the EPL text. */
  static final class Refusal extends RuntimeException {
    private final String word;

    Refusal(String word, String message) {
      super(message, null, false, false);
      this.word = word;
    }

    String word() {
      return word;
    }
  }

  /** Expressions that only combine their children: allowed when their children are. */
  private static final Set<Class<?>> PLAIN =
      Set.of(
          ArithmaticExpression.class,
          ArrayExpression.class,
          BetweenExpression.class,
          BitwiseOpExpression.class,
          CaseSwitchExpression.class,
          CaseWhenThenExpression.class,
          CoalesceExpression.class,
          CompareListExpression.class,
          ConcatExpression.class,
          Conjunction.class,
          Disjunction.class,
          ConstantExpression.class,
          CrontabFrequencyExpression.class,
          CrontabParameterExpression.class,
          CrontabParameterSetExpression.class,
          CrontabRangeExpression.class,
          CurrentTimestampExpression.class,
          GroupingExpression.class,
          GroupingIdExpression.class,
          InExpression.class,
          IStreamBuiltinExpression.class,
          LikeExpression.class,
          MaxRowExpression.class,
          MinRowExpression.class,
          NamedParameterExpression.class,
          NewOperatorExpression.class,
          NotExpression.class,
          OrderedObjectParamExpression.class,
          PreviousExpression.class,
          PropertyExistsExpression.class,
          RegExpExpression.class,
          RelationalOpExpression.class,
          StreamWildcardExpression.class,
          TimePeriodExpression.class,
          TypeOfExpression.class,
          WildcardExpression.class,
          // aggregations; plug-in ones are Esper's extended built-ins (rate, nth, sorted...): none
          // are configured
          AvedevProjectionExpression.class,
          AvgProjectionExpression.class,
          CountEverProjectionExpression.class,
          CountProjectionExpression.class,
          CountStarProjectionExpression.class,
          FirstEverProjectionExpression.class,
          FirstProjectionExpression.class,
          LastEverProjectionExpression.class,
          LastProjectionExpression.class,
          MaxProjectionExpression.class,
          MedianProjectionExpression.class,
          MinProjectionExpression.class,
          StddevProjectionExpression.class,
          SumProjectionExpression.class,
          WindowProjectionExpression.class,
          PlugInProjectionExpression.class);

  /** What each kind of model object may hold: the getters this walk reads or refuses explicitly. */
  private static final Set<String> STATEMENT_MEMBERS =
      Set.of(
          "getAnnotations",
          "getScriptExpressions",
          "getExpressionDeclarations",
          "getClassProvidedExpressions",
          "getCreateClass",
          "getCreateWindow",
          "getCreateVariable",
          "getCreateTable",
          "getCreateSchema",
          "getCreateContext",
          "getCreateIndex",
          "getCreateDataFlow",
          "getCreateExpression",
          "getOnExpr",
          "getUpdateClause",
          "getFireAndForgetClause",
          "getInsertInto",
          "getIntoTableClause",
          "getContextName",
          "getForClause",
          "getFromClause",
          "getMatchRecognizeClause",
          "getSelectClause",
          "getWhereClause",
          "getGroupByClause",
          "getHavingClause",
          "getOrderByClause",
          "getOutputLimitClause",
          "getRowLimitClause");

  private static final Set<String> OUTPUT_MEMBERS =
      Set.of(
          "getSelector",
          "getFrequency",
          "getUnit",
          "getFrequencyVariable",
          "getWhenExpression",
          "getTimePeriodExpression",
          "getThenAssignments",
          "getCrontabAtParameters",
          "getAfterTimePeriodExpression",
          "getAfterNumberOfEvents",
          "getAndAfterTerminateAndExpr",
          "getAndAfterTerminateThenAssignments");
  private static final Set<String> ROW_LIMIT_MEMBERS =
      Set.of(
          "getNumRows",
          "getOptionalOffsetRows",
          "getNumRowsVariable",
          "getOptionalOffsetRowsVariable");
  private static final Set<String> SELECT_MEMBERS = Set.of("getSelectList", "getStreamSelector");
  private static final Set<String> FROM_MEMBERS = Set.of("getStreams", "getOuterJoinQualifiers");
  private static final Set<String> STREAM_MEMBERS =
      Set.of("getFilter", "getExpression", "getAnnotations", "getStreamName", "getViews");
  private static final Set<String> FILTER_MEMBERS =
      Set.of("getEventTypeName", "getFilter", "getOptionalPropertySelects");
  private static final Set<String> VIEW_MEMBERS =
      Set.of("getNamespace", "getName", "getParameters");
  private static final Set<String> CONTAINED_MEMBERS =
      Set.of(
          "getOptionalAsName",
          "getOptionalSplitExpressionTypeName",
          "getSelectClause",
          "getSplitExpression",
          "getWhereClause");
  private static final Set<String> MATCH_RECOGNIZE_MEMBERS =
      Set.of(
          "getDefines",
          "getIntervalClause",
          "getMeasures",
          "getPartitionExpressions",
          "getPattern",
          "getSkipClause");
  private static final Set<String> REGEX_MEMBERS =
      Set.of("getChildren", "getName", "getOptionalRepeat");
  private static final Set<String> REPEAT_MEMBERS = Set.of("getLow", "getHigh", "getSingle");
  private static final Set<String> PATTERN_MEMBERS =
      Set.of(
          "getChildren",
          "getFilter",
          "getTagName",
          "getOptionalConsumptionLevel",
          "getGuarded",
          "getName",
          "getNamespace",
          "getParameters",
          "getExpressions",
          "getLow",
          "getHigh",
          "getSingle",
          "getOptionalMaxPerSubexpression");
  private static final Set<String> JOIN_MEMBERS =
      Set.of("getAdditionalProperties", "getLeft", "getRight");

  /** Pattern operators that only combine their children. */
  private static final Set<Class<?>> PATTERN_OPERATORS =
      Set.of(
          PatternAndExpr.class, PatternOrExpr.class, PatternNotExpr.class, PatternEveryExpr.class);

  private final Set<String> inputs;
  private final long maxWindowEvents;
  private final Duration maxWindowTime;

  /**
   * Names that denote values: inputs, stream names, pattern tags, match-recognize variables, lambda
   * parameters.
   */
  private final Set<String> valueNames = new HashSet<>();

  /**
   * States the match_recognize patterns of the statement expand to (Esper compiles one NFA state
   * each).
   */
  private long regexStates;

  /** Whether every stream of the statement being walked has a count or time window. */
  private boolean streamsBounded;

  EplModelCheck(
      Set<String> inputs,
      Set<String> eventProperties,
      long maxWindowEvents,
      Duration maxWindowTime) {
    this.inputs = inputs;
    this.maxWindowEvents = maxWindowEvents;
    this.maxWindowTime = maxWindowTime;
    inputs.forEach(alias -> valueName(alias, alias));
    valueNames.addAll(eventProperties);
  }

  /**
   * Adds a name that denotes a value. A value name decides how the walk reads a dotted name ({@code
   * a.b.c()} is a call on the value {@code a}, not a static call), so none may shadow a package
   * root ({@code java}, {@code org}...) or a class EPL may call static methods on: {@code x =>
   * java.lang.System.exit(0)} with a lambda parameter named {@code java} would otherwise read as a
   * call on a value.
   */
  private void valueName(String name, String word) {
    if (name == null) {
      return;
    }
    String plain = name.replace("`", "");
    if (EplAllowList.PACKAGE_ROOTS.contains(plain.toLowerCase(Locale.ROOT))
        || EplAllowList.STATIC_METHODS.containsKey(plain)) {
      throw new Refusal(
          word,
          "the name '"
              + plain
              + "' is not allowed for a stream, tag, variable or parameter: it "
              + "is a package or class name");
    }
    valueNames.add(plain);
  }

  /** Refuses the parts of a model object this walk does not read. */
  private static void members(Object model, Set<String> handled, String word) {
    List<String> unknown = ModelMembers.unhandled(model, handled);
    if (!unknown.isEmpty()) {
      throw new Refusal(
          word,
          model.getClass().getSimpleName()
              + " holds "
              + String.join(", ", unknown).replace("get", "")
              + ", which the detector guard does not check, so it is refused");
    }
  }

  /** Checks a statement or a subquery. */
  void statement(EPStatementObjectModel m) {
    members(m, STATEMENT_MEMBERS, "select");
    if (m.getAnnotations() != null && !m.getAnnotations().isEmpty()) {
      AnnotationPart a = m.getAnnotations().get(0);
      throw new Refusal(a.getName(), "annotation @" + a.getName() + " is not allowed");
    }
    if (m.getScriptExpressions() != null && !m.getScriptExpressions().isEmpty()) {
      throw new Refusal(
          "expression",
          "script '"
              + m.getScriptExpressions().get(0).getName()
              + "' (expression dialect:name(...) [...]) is not allowed: scripts are disabled");
    }
    if (m.getExpressionDeclarations() != null && !m.getExpressionDeclarations().isEmpty()) {
      throw new Refusal(
          "expression",
          "expression declaration '"
              + m.getExpressionDeclarations().get(0).getName()
              + "' is not allowed");
    }
    if (m.getClassProvidedExpressions() != null && !m.getClassProvidedExpressions().isEmpty()
        || m.getCreateClass() != null) {
      throw new Refusal(
          "inlined_class",
          "inlined class (inlined_class \"\"\"...\"\"\") is not allowed: "
              + "detectors cannot define Java classes");
    }
    refuseCreate(m);
    if (m.getOnExpr() != null) {
      throw new Refusal(
          "on", "on-trigger statement (on ... select/insert/update/delete/merge) is not allowed");
    }
    if (m.getUpdateClause() != null) {
      throw new Refusal("update", "update istream is not allowed");
    }
    if (m.getFireAndForgetClause() != null) {
      throw new Refusal("delete", "fire-and-forget queries are not allowed");
    }
    if (m.getInsertInto() != null) {
      throw new Refusal(
          "insert",
          "insert into "
              + m.getInsertInto().getStreamName()
              + " is not allowed: a detector's rows become its derived events");
    }
    if (m.getIntoTableClause() != null) {
      throw new Refusal("into", "into table is not allowed");
    }
    if (m.getContextName() != null) {
      throw new Refusal("context", "context " + m.getContextName() + " is not allowed");
    }
    if (m.getForClause() != null) {
      throw new Refusal("for", "for-clause is not allowed");
    }
    boolean outer = streamsBounded;
    streamsBounded = from(m.getFromClause());
    matchRecognize(m.getMatchRecognizeClause());
    select(m.getSelectClause());
    expression(m.getWhereClause());
    if (m.getGroupByClause() != null) {
      members(m.getGroupByClause(), Set.of("getGroupByExpressions"), "group");
      m.getGroupByClause().getGroupByExpressions().forEach(this::groupBy);
    }
    expression(m.getHavingClause());
    if (m.getOrderByClause() != null) {
      members(m.getOrderByClause(), Set.of("getOrderByExpressions"), "order");
      for (OrderByElement e : m.getOrderByClause().getOrderByExpressions()) {
        members(e, Set.of("getExpression"), "order");
        expression(e.getExpression());
      }
    }
    output(m.getOutputLimitClause());
    RowLimitClause limit = m.getRowLimitClause();
    if (limit != null) {
      members(limit, ROW_LIMIT_MEMBERS, "limit");
      if (limit.getNumRowsVariable() != null || limit.getOptionalOffsetRowsVariable() != null) {
        throw new Refusal("limit", "variables are not allowed in limit");
      }
    }
    streamsBounded = outer;
  }

  private static void refuseCreate(EPStatementObjectModel m) {
    String kind =
        m.getCreateWindow() != null
            ? "window"
            : m.getCreateVariable() != null
                ? "variable"
                : m.getCreateTable() != null
                    ? "table"
                    : m.getCreateSchema() != null
                        ? "schema"
                        : m.getCreateContext() != null
                            ? "context"
                            : m.getCreateIndex() != null
                                ? "index"
                                : m.getCreateDataFlow() != null
                                    ? "dataflow"
                                    : m.getCreateExpression() != null ? "expression" : null;
    if (kind != null) {
      throw new Refusal(
          "create", "create " + kind + " is not allowed: a detector is one select statement");
    }
  }

  /** Checks the from clause; returns whether every stream has a count or time window. */
  private boolean from(FromClause from) {
    if (from == null) {
      return true;
    }
    members(from, FROM_MEMBERS, "from");
    boolean bounded = true;
    for (Stream s : from.getStreams()) {
      valueName(s.getStreamName(), s.getStreamName() == null ? "" : s.getStreamName());
      if (s instanceof FilterStream f) {
        members(s, STREAM_MEMBERS, "from");
        filter(f.getFilter());
      } else if (s instanceof PatternStream p) {
        members(s, STREAM_MEMBERS, "from");
        patternAnnotations(p);
        pattern(p.getExpression());
      } else {
        String kind = s.getClass().getSimpleName().replace("Stream", "").toLowerCase(Locale.ROOT);
        throw new Refusal(
            kind.startsWith("method") ? "method" : kind,
            kind + " joins (from method:/sql:) are not allowed: a detector reads its inputs only");
      }
      bounded &= s instanceof ProjectedStream p && views(p.getViews());
    }
    for (OuterJoinQualifier q : from.getOuterJoinQualifiers()) {
      members(q, JOIN_MEMBERS, "join");
      expression(q.getLeft());
      expression(q.getRight());
      for (PropertyValueExpressionPair pair : q.getAdditionalProperties()) {
        expression(pair.getLeft());
        expression(pair.getRight());
      }
    }
    return bounded;
  }

  /**
   * Pattern annotations: only {@code @SuppressOverlappingMatches} and
   * {@code @DiscardPartialsOnMatch}, which take no values (Esper resolves other annotation names as
   * classes).
   */
  private static void patternAnnotations(PatternStream p) {
    if (p.getAnnotations() == null) {
      return;
    }
    for (AnnotationPart a : p.getAnnotations()) {
      if (!EplAllowList.PATTERN_ANNOTATIONS.contains(a.getName())
          || a.getAttributes() != null && !a.getAttributes().isEmpty()) {
        throw new Refusal(
            a.getName(),
            "pattern annotation @"
                + a.getName()
                + (a.getAttributes() == null || a.getAttributes().isEmpty() ? "" : "(...)")
                + " is not allowed; allowed without values: @"
                + String.join(", @", EplAllowList.PATTERN_ANNOTATIONS.stream().sorted().toList()));
      }
    }
  }

  /** Checks a stream's views; returns whether one of them bounds what the stream retains. */
  private boolean views(List<View> views) {
    boolean bounded = false;
    String keyed = null;
    for (View v : views) {
      view(v);
      String name = v.getName().toLowerCase(Locale.ROOT);
      bounded |=
          EplAllowList.COUNT_WINDOWS.containsKey(name)
              || EplAllowList.TIME_WINDOWS.containsKey(name)
              || EplAllowList.SINGLE_EVENT_VIEWS.contains(name);
      keyed = keyed == null && EplAllowList.KEYED_VIEWS.contains(name) ? v.getName() : keyed;
    }
    if (keyed != null && !bounded) {
      throw new Refusal(
          keyed,
          "#"
              + keyed
              + " needs a count or time window beside it, e.g. #"
              + keyed
              + "(key)#time(1 hour): alone it keeps an event for every key ever seen");
    }
    return bounded;
  }

  private void filter(Filter f) {
    members(f, FILTER_MEMBERS, f.getEventTypeName());
    if (!inputs.contains(f.getEventTypeName())) {
      throw new Refusal(
          f.getEventTypeName(),
          "stream '"
              + f.getEventTypeName()
              + "' is not an input of this detector; inputs: "
              + String.join(", ", inputs));
    }
    expression(f.getFilter());
    if (f.getOptionalPropertySelects() != null) {
      for (ContainedEventSelect c : f.getOptionalPropertySelects()) {
        members(c, CONTAINED_MEMBERS, "select");
        if (c.getOptionalSplitExpressionTypeName() != null) {
          throw new Refusal(
              "@type",
              "@type("
                  + c.getOptionalSplitExpressionTypeName()
                  + ") in a contained-event selection is not allowed");
        }
        valueName(
            c.getOptionalAsName(), c.getOptionalAsName() == null ? "" : c.getOptionalAsName());
        expression(c.getSplitExpression());
        select(c.getSelectClause());
        expression(c.getWhereClause());
      }
    }
  }

  private void pattern(PatternExpr p) {
    if (p == null) {
      return;
    }
    members(p, PATTERN_MEMBERS, "pattern");
    if (p instanceof PatternFilterExpr f) {
      valueName(f.getTagName(), f.getTagName() == null ? "" : f.getTagName());
      filter(f.getFilter());
    } else if (p instanceof PatternEveryDistinctExpr d) {
      d.getExpressions().forEach(this::expression);
      Expression expiry = d.getExpressions().get(d.getExpressions().size() - 1);
      if (d.getExpressions().size() < 2 || !(expiry instanceof TimePeriodExpression)) {
        throw new Refusal(
            "every-distinct",
            "every-distinct needs an expiry time as its last parameter, e.g. "
                + "every-distinct(a.id, 1 hour): without one it keeps every key ever seen");
      }
      time(expiry, "every-distinct expiry", "every-distinct");
    } else if (p instanceof PatternMatchUntilExpr u) {
      for (Expression bound : new Expression[] {u.getLow(), u.getHigh(), u.getSingle()}) {
        count(bound, "pattern repeat [" + describe(bound) + "]", "repeat");
      }
    } else if (p instanceof PatternFollowedByExpr f) {
      if (f.getOptionalMaxPerSubexpression() != null) {
        f.getOptionalMaxPerSubexpression().forEach(this::expression);
      }
    } else if (p instanceof PatternGuardExpr g) {
      String name = g.getNamespace() + ":" + g.getName();
      if (!EplAllowList.PATTERN_GUARDS.contains(name)) {
        throw new Refusal(
            g.getName(),
            "pattern guard "
                + name
                + " is not allowed; allowed: timer:within, "
                + "timer:withinmax, while");
      }
      g.getParameters().forEach(this::expression);
    } else if (p instanceof PatternObserverExpr o) {
      String name = o.getNamespace() + ":" + o.getName();
      if (!EplAllowList.PATTERN_OBSERVERS.contains(name)) {
        throw new Refusal(
            o.getName(),
            "pattern observer "
                + name
                + " is not allowed; allowed: timer:interval, "
                + "timer:at, timer:schedule");
      }
      o.getParameters().forEach(this::expression);
    } else if (!PATTERN_OPERATORS.contains(p.getClass())) {
      throw new Refusal(
          "pattern", "pattern element " + p.getClass().getSimpleName() + " is not allowed");
    }
    for (PatternExpr child : p.getChildren()) {
      pattern(child);
    }
  }

  private void view(View v) {
    members(v, VIEW_MEMBERS, v.getName());
    if (v.getNamespace() != null
        && !EplAllowList.VIEW_NAMESPACES.contains(v.getNamespace().toLowerCase(Locale.ROOT))) {
      throw new Refusal(
          v.getNamespace(),
          "view namespace "
              + v.getNamespace()
              + ": is not allowed: plug-in views "
              + "are not available to detectors");
    }
    String name = v.getName().toLowerCase(Locale.ROOT);
    List<Expression> params = v.getParameters();
    Integer countAt = EplAllowList.COUNT_WINDOWS.get(name);
    Integer timeAt = EplAllowList.TIME_WINDOWS.get(name);
    if (countAt == null && timeAt == null && !EplAllowList.OTHER_VIEWS.contains(name)) {
      throw new Refusal(
          v.getName(),
          "data window #"
              + v.getName()
              + " is not allowed: it can retain events "
              + "without bound; use #length, #time, #length_batch, #time_batch, #unique... (see the README)");
    }
    params.forEach(this::expression);
    String what = "#" + v.getName() + " window size";
    if (countAt != null) {
      count(countAt < params.size() ? params.get(countAt) : null, what, v.getName());
    }
    if (timeAt != null) {
      time(timeAt < params.size() ? params.get(timeAt) : null, what, v.getName());
    }
  }

  private void matchRecognize(MatchRecognizeClause mr) {
    if (mr == null) {
      return;
    }
    members(mr, MATCH_RECOGNIZE_MEMBERS, "match_recognize");
    regex(mr.getPattern());
    if (regexStates > EplAllowList.MAX_REGEX_STATES) {
      throw new Refusal(
          "pattern",
          "the match_recognize pattern expands to "
              + regexStates
              + " states, above the limit "
              + "of "
              + EplAllowList.MAX_REGEX_STATES
              + " (Esper compiles one state per repeated variable: A{1000} takes "
              + "seconds to compile)");
    }
    for (MatchRecognizeDefine d : mr.getDefines()) {
      members(d, Set.of("getName", "getExpression"), "define");
      valueName(d.getName(), d.getName());
    }
    mr.getPartitionExpressions().forEach(this::expression);
    for (MatchRecognizeDefine d : mr.getDefines()) {
      expression(d.getExpression());
    }
    for (SelectClauseExpression e : mr.getMeasures()) {
      expression(e.getExpression());
    }
    if (mr.getIntervalClause() != null) {
      members(mr.getIntervalClause(), Set.of("getExpression"), "interval");
      time(mr.getIntervalClause().getExpression(), "match_recognize interval", "interval");
    }
  }

  /**
   * Walks a match_recognize pattern, adding up the states it expands to; repeats need constant
   * bounds.
   */
  private void regex(MatchRecognizeRegEx r) {
    regexStates += regexSize(r);
  }

  private long regexSize(MatchRecognizeRegEx r) {
    if (r == null) {
      return 0;
    }
    members(r, REGEX_MEMBERS, "pattern");
    long size;
    if (r instanceof MatchRecognizeRegExAtom a) {
      size = 1;
      size *= repeat(a.getOptionalRepeat());
    } else if (r instanceof MatchRecognizeRegExNested n) {
      size = 0;
      for (MatchRecognizeRegEx c : n.getChildren()) {
        size += regexSize(c);
      }
      size *= repeat(n.getOptionalRepeat());
    } else if (r instanceof MatchRecognizeRegExConcatenation
        || r instanceof MatchRecognizeRegExAlteration) {
      size = 0;
      for (MatchRecognizeRegEx c : r.getChildren()) {
        size += regexSize(c);
      }
    } else {
      throw new Refusal(
          "pattern",
          "match_recognize element "
              + r.getClass().getSimpleName().replace("MatchRecognize", "")
              + " is not allowed");
    }
    return Math.min(size, Long.MAX_VALUE / 4);
  }

  /** The largest count a repeat {n}, {n,}, {,m} or {n,m} stands for (1 without a repeat). */
  private long repeat(MatchRecognizeRegExRepeat r) {
    if (r == null) {
      return 1;
    }
    members(r, REPEAT_MEMBERS, "pattern");
    long most = 1;
    for (Expression bound : new Expression[] {r.getLow(), r.getHigh(), r.getSingle()}) {
      if (bound == null) {
        continue;
      }
      if (!(bound instanceof ConstantExpression c) || !(c.getConstant() instanceof Number n)) {
        throw new Refusal("pattern", "match_recognize repeat bounds must be numbers");
      }
      most = Math.max(most, n.longValue());
    }
    return most;
  }

  private void select(SelectClause select) {
    if (select == null) {
      return;
    }
    members(select, SELECT_MEMBERS, "select");
    for (SelectClauseElement e : select.getSelectList()) {
      if (e instanceof SelectClauseExpression x) {
        expression(x.getExpression());
      } else if (!(e instanceof SelectClauseWildcard)
          && !(e instanceof SelectClauseStreamWildcard)) {
        throw new Refusal(
            "select", "select element " + e.getClass().getSimpleName() + " is not allowed");
      }
    }
  }

  private void groupBy(GroupByClauseExpression g) {
    if (g instanceof GroupByClauseExpressionSingle s) {
      expression(s.getExpression());
    } else if (g instanceof GroupByClauseExpressionCombination c) {
      c.getExpressions().forEach(this::expression);
    } else if (g instanceof GroupByClauseExpressionGroupingSet s) {
      s.getExpressions().forEach(this::groupBy);
    } else if (g instanceof GroupByClauseExpressionRollupOrCube r) {
      r.getExpressions().forEach(this::groupBy);
    } else {
      throw new Refusal(
          "group", "group-by element " + g.getClass().getSimpleName() + " is not allowed");
    }
  }

  private void output(OutputLimitClause o) {
    if (o == null) {
      return;
    }
    members(o, OUTPUT_MEMBERS, "output");
    if (o.getFrequencyVariable() != null
        || o.getThenAssignments() != null && !o.getThenAssignments().isEmpty()
        || o.getAndAfterTerminateThenAssignments() != null
            && !o.getAndAfterTerminateThenAssignments().isEmpty()) {
      throw new Refusal(
          "output",
          "variables and assignments (then set ...) in the output clause are not allowed");
    }
    if (o.getUnit() == OutputLimitUnit.EVENTS
        && o.getFrequency() != null
        && o.getFrequency() > maxWindowEvents) {
      throw new Refusal(
          "output",
          "output every "
              + o.getFrequency().longValue()
              + " events is above the limit of "
              + maxWindowEvents
              + " events");
    }
    if (o.getTimePeriodExpression() != null) {
      time(o.getTimePeriodExpression(), "output rate", "output");
    }
    if (o.getCrontabAtParameters() != null) {
      for (Expression p : o.getCrontabAtParameters()) {
        expression(p);
      }
    }
    expression(o.getWhenExpression());
    expression(o.getAfterTimePeriodExpression());
    expression(o.getAndAfterTerminateAndExpr());
  }

  /**
   * Checks one expression and everything below it, innermost first (so a message names the deepest
   * culprit).
   */
  void expression(Expression e) {
    if (e == null) {
      return;
    }
    if (e instanceof LambdaExpression l) {
      l.getParameters().forEach(name -> valueName(name, name));
    }
    for (Expression child : e.getChildren()) {
      expression(child);
    }
    if (e instanceof PropertyValueExpression p) {
      propertyName(p.getPropertyName());
    } else if (e instanceof DotExpression d) {
      dot(d.getChain(), !d.getChildren().isEmpty());
    } else if (e instanceof CastExpression c) {
      type(c.getTypeName(), "cast to " + c.getTypeName());
    } else if (e instanceof InstanceOfExpression i) {
      for (String t : i.getTypeNames()) {
        type(t, "instanceof " + t);
      }
    } else if (e instanceof NewInstanceOperatorExpression n) {
      throw new Refusal(
          "new",
          "new "
              + n.getClassName()
              + "(...) is not allowed: the new operator may only "
              + "build maps (new { name = value, ... })");
    } else if (e instanceof SubqueryExpression s) {
      statement(s.getModel());
    } else if (e instanceof SubqueryExistsExpression s) {
      statement(s.getModel());
    } else if (e instanceof SubqueryInExpression s) {
      statement(s.getModel());
    } else if (e instanceof SubqueryQualifiedExpression s) {
      statement(s.getModel());
    } else if (e instanceof LambdaExpression) {
      return;
    } else if (retains(e) && !streamsBounded) {
      String function = describe(e);
      throw new Refusal(
          function.contains("(") ? function.substring(0, function.indexOf('(')) : function,
          function
              + " keeps every value it aggregates: every stream of the statement needs a count or time window, "
              + "e.g. #length(1000) or #time(1 hour)");
    } else if (e instanceof PlugInProjectionExpression p
        && !EplAllowList.EXTENDED_AGGREGATIONS.contains(
            p.getFunctionName().toLowerCase(Locale.ROOT))) {
      throw new Refusal(
          p.getFunctionName(),
          "aggregation "
              + p.getFunctionName()
              + "() is not allowed: only Esper's "
              + "built-in aggregations are available to detectors");
    } else if (e instanceof PriorExpression) {
      count(e.getChildren().isEmpty() ? null : e.getChildren().get(0), "prior index", "prior");
    } else if (e instanceof CurrentEvaluationContextExpression) {
      throw new Refusal(
          "current_evaluation_context",
          "current_evaluation_context() is not allowed: it exposes " + "Esper's runtime objects");
    } else if (!PLAIN.contains(e.getClass())) {
      String kind = e.getClass().getSimpleName().replace("Expression", "");
      throw new Refusal(kind, kind + " expressions are not allowed in detectors");
    }
  }

  /**
   * A chain such as {@code a.b.method(x).other()}. A leading name followed by a call is a static
   * method call when the name is not a value (input, stream, tag, variable, event property): only
   * {@link EplAllowList} classes and methods pass. Every other call must be a value method on the
   * allow-list.
   */
  private void dot(List<DotExpressionItem> chain, boolean startsWithValue) {
    boolean onValue = startsWithValue;
    for (int i = 0; i < chain.size(); i++) {
      DotExpressionItem item = chain.get(i);
      if (item instanceof DotExpressionItemName n) {
        String name = n.getName().replace("`", "");
        boolean callFollows =
            i + 1 < chain.size() && chain.get(i + 1) instanceof DotExpressionItemCall;
        if (!onValue && callFollows && !valueNames.contains(firstSegment(name))) {
          DotExpressionItemCall call = (DotExpressionItemCall) chain.get(++i);
          staticCall(name, call);
          call.getParameters().forEach(this::expression);
        } else {
          propertyName(name);
        }
      } else if (item instanceof DotExpressionItemCall c) {
        if (!onValue && i == 0 && valueNames.contains(c.getName())) {
          // a mapped property such as data('key') followed by more of the chain
          c.getParameters().forEach(this::expression);
          onValue = true;
          continue;
        }
        if (!onValue) {
          throw new Refusal(
              c.getName(),
              "function "
                  + c.getName()
                  + "() is not allowed: detectors cannot call "
                  + "user-defined or plug-in functions");
        }
        if (!EplAllowList.VALUE_METHODS.contains(c.getName().toLowerCase(Locale.ROOT))) {
          throw new Refusal(
              c.getName(),
              "method call "
                  + c.getName()
                  + "() is not allowed: only read-only "
                  + "String, number and Map methods and Esper's enumeration and date-time methods may be called on "
                  + "values (see the README)");
        }
        c.getParameters().forEach(this::expression);
      } else if (item instanceof DotExpressionItemArray a) {
        a.getIndexes().forEach(this::expression);
      } else {
        throw new Refusal(
            "", "expression element " + item.getClass().getSimpleName() + " is not allowed");
      }
      onValue = true;
    }
  }

  /** Aggregations that keep every value: median, avedev, distinct ones, sorted/maxby/minby. */
  private static boolean retains(Expression e) {
    if (e instanceof MedianProjectionExpression || e instanceof AvedevProjectionExpression) {
      return true;
    }
    if (e instanceof PlugInProjectionExpression p
        && EplAllowList.RETAINING_AGGREGATIONS.contains(
            p.getFunctionName().toLowerCase(Locale.ROOT))) {
      return true;
    }
    try {
      return PLAIN.contains(e.getClass())
          && Boolean.TRUE.equals(e.getClass().getMethod("isDistinct").invoke(e));
    } catch (ReflectiveOperationException notAnAggregation) {
      return false;
    }
  }

  private static void staticCall(String className, DotExpressionItemCall call) {
    String method = className + "." + call.getName() + "()";
    Set<String> methods = EplAllowList.STATIC_METHODS.get(className);
    if (methods == null && Character.isLowerCase(className.charAt(0)) && !className.contains(".")) {
      throw new Refusal(
          className,
          "call "
              + method
              + " is not allowed: '"
              + className
              + "' is no input, stream, "
              + "tag or property name, and not one of the classes allowed for static calls: "
              + EplAllowList.staticClasses());
    }
    if (methods == null) {
      throw new Refusal(
          className,
          "static method call "
              + method
              + " is not allowed; allowed classes: "
              + EplAllowList.staticClasses());
    }
    if (!methods.contains(call.getName())) {
      throw new Refusal(call.getName(), "static method call " + method + " is not allowed");
    }
  }

  /**
   * A property name such as {@code a.data.x?.y('k')[0]}: no refused segment, no package root first.
   */
  private void propertyName(String name) {
    List<String> segments = segments(name);
    if (segments.isEmpty()) {
      return;
    }
    String first = segments.get(0);
    if (segments.size() > 1
        && EplAllowList.PACKAGE_ROOTS.contains(first.toLowerCase(Locale.ROOT))
        && !valueNames.contains(first)) {
      throw new Refusal(
          first,
          "fully qualified name "
              + name.replace("`", "")
              + " is not allowed: detectors "
              + "cannot refer to Java classes");
    }
    for (String s : segments) {
      if (EplAllowList.PROPERTY_NAMES_REFUSED.contains(s.toLowerCase(Locale.ROOT))) {
        throw new Refusal(s, "property '" + s + "' is not allowed: it would reach Java reflection");
      }
    }
  }

  private static void type(String typeName, String what) {
    String t = typeName.replace("`", "").replace("[]", "").trim();
    if (!EplAllowList.TYPES.contains(t.toLowerCase(Locale.ROOT))) {
      throw new Refusal(
          t.contains(".") ? firstSegment(t) : t,
          what
              + " is not allowed; allowed types: string, "
              + "boolean, byte, short, int, long, float, double, char, BigDecimal, BigInteger");
    }
  }

  /** A count bound: a number constant no larger than the maximum. */
  private void count(Expression e, String what, String word) {
    if (e == null) {
      return;
    }
    if (!(e instanceof ConstantExpression c) || !(c.getConstant() instanceof Number n)) {
      throw new Refusal(word, what + " must be a number");
    }
    if (n.doubleValue() > maxWindowEvents) {
      throw new Refusal(
          word, what + " " + describe(e) + " is above the limit of " + maxWindowEvents + " events");
    }
  }

  /**
   * A time bound: a time period or a number of seconds, of constants, no longer than the maximum.
   */
  private void time(Expression e, String what, String word) {
    if (e == null) {
      return;
    }
    double millis = millis(e, what, word);
    if (millis > maxWindowTime.toMillis()) {
      throw new Refusal(word, what + " " + describe(e) + " is above the limit of " + maxWindowTime);
    }
  }

  private static double millis(Expression e, String what, String word) {
    if (e instanceof ConstantExpression c && c.getConstant() instanceof Number n) {
      return n.doubleValue() * 1000;
    }
    if (!(e instanceof TimePeriodExpression t)) {
      throw new Refusal(word, what + " must be a time period of constants such as 10 min");
    }
    boolean[] has = {
      t.isHasYears(),
      t.isHasMonths(),
      t.isHasWeeks(),
      t.isHasDays(),
      t.isHasHours(),
      t.isHasMinutes(),
      t.isHasSeconds(),
      t.isHasMilliseconds(),
      t.isHasMicroseconds()
    };
    // a year counts as 365 days and a month as 31: only an upper bound matters here
    double[] unitMillis = {
      365 * 86_400_000d,
      31 * 86_400_000d,
      7 * 86_400_000d,
      86_400_000d,
      3_600_000d,
      60_000d,
      1000d,
      1d,
      0.001d
    };
    List<Expression> values = new ArrayList<>(t.getChildren());
    double total = 0;
    for (int i = 0, v = 0; i < has.length; i++) {
      if (has[i]) {
        Expression part = v < values.size() ? values.get(v++) : null;
        if (!(part instanceof ConstantExpression c) || !(c.getConstant() instanceof Number n)) {
          throw new Refusal(word, what + " must be a time period of constants such as 10 min");
        }
        total += n.doubleValue() * unitMillis[i];
      }
    }
    return total;
  }

  private static String describe(Expression e) {
    if (e == null) {
      return "";
    }
    StringWriter w = new StringWriter();
    e.toEPL(w, ExpressionPrecedenceEnum.MINIMUM);
    return w.toString();
  }

  private static String firstSegment(String name) {
    List<String> s = segments(name);
    return s.isEmpty() ? name : s.get(0);
  }

  /**
   * The names of a dotted property path without backticks, {@code ?}, keys and indexes: {@code
   * a.`b.c`.d?('k.x')[0]} gives {@code a}, {@code b.c}, {@code d}.
   */
  static List<String> segments(String path) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int depth = 0;
    boolean backtick = false;
    char quote = 0;
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '`') {
        backtick = !backtick;
      } else if (backtick) {
        current.append(c);
      } else if (c == '(' || c == '[') {
        depth++;
      } else if (c == ')' || c == ']') {
        depth--;
      } else if (depth == 0 && c == '.') {
        out.add(current.toString());
        current.setLength(0);
      } else if (depth == 0 && c != '?' && !Character.isWhitespace(c)) {
        current.append(c);
      }
    }
    out.add(current.toString());
    out.removeIf(String::isEmpty);
    return out;
  }
}
