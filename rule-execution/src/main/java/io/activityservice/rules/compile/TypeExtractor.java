package io.activityservice.rules.compile;

import io.activityservice.rules.compile.internal.DrlScanner;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.drools.drl.ast.descr.AccumulateDescr;
import org.drools.drl.ast.descr.BaseDescr;
import org.drools.drl.ast.descr.CollectDescr;
import org.drools.drl.ast.descr.ConditionalElementDescr;
import org.drools.drl.ast.descr.ExprConstraintDescr;
import org.drools.drl.ast.descr.FromDescr;
import org.drools.drl.ast.descr.PackageDescr;
import org.drools.drl.ast.descr.PatternDescr;
import org.drools.drl.ast.descr.PatternSourceDescr;
import org.drools.drl.ast.descr.RuleDescr;
import org.drools.drl.ast.descr.WindowDeclarationDescr;
import org.drools.drl.ast.descr.WindowReferenceDescr;

/**
 * Derives the event types a rule set can match from its parsed DRL ({@link PackageDescr}): every
 * {@code Event} pattern (in rules, queries, {@code not}/{@code exists}/{@code or}, accumulate and
 * collect sources, window declarations) must carry a type constraint — {@code type == "t"}, {@code
 * type in ("t1", "t2")}, or {@code type == "t1" || type == "t2"} — or the rule set receives every
 * event. {@code Object} patterns, and rule sets without any {@code Event} pattern, also receive
 * every event. Runs at deploy time only.
 */
public final class TypeExtractor {

  private static final String STRING = "(?:\"([^\"\\\\]*)\"|'([^'\\\\]*)')";
  private static final String TYPE = "(?:this\\s*\\.\\s*)?(?:type|getType\\s*\\(\\s*\\))";
  private static final Pattern EQUALS =
      Pattern.compile("^\\s*" + TYPE + "\\s*==\\s*" + STRING + "\\s*$");
  private static final Pattern EQUALS_REVERSED =
      Pattern.compile("^\\s*" + STRING + "\\s*==\\s*" + TYPE + "\\s*$");
  private static final Pattern IN =
      Pattern.compile("^\\s*" + TYPE + "\\s+in\\s*\\((.*)\\)\\s*$", Pattern.DOTALL);
  private static final Pattern LITERAL = Pattern.compile("^\\s*" + STRING + "\\s*$");

  private TypeExtractor() {}

  /** The types the rule set can match. */
  public static EventTypes extract(PackageDescr pkg) {
    Walk walk = new Walk();
    for (RuleDescr rule : pkg.getRules()) {
      walk.descr(rule.getLhs());
    }
    for (WindowDeclarationDescr window : pkg.getWindowDeclarations()) {
      walk.pattern(window.getPattern());
    }
    return walk.all || walk.eventPatterns == 0 ? EventTypes.ALL : EventTypes.of(walk.types);
  }

  /**
   * The types a single constraint expression restricts {@code type} to, or {@code null} if it does
   * not.
   */
  static Set<String> typesOf(String expression) {
    String e = strip(expression);
    List<String> alternatives = split(e, "||");
    if (alternatives.size() > 1) {
      Set<String> union = new HashSet<>();
      for (String alternative : alternatives) {
        Set<String> t = typesOf(alternative);
        if (t == null) {
          return null;
        }
        union.addAll(t);
      }
      return union;
    }
    List<String> conjuncts = split(e, "&&");
    if (conjuncts.size() > 1) {
      for (String conjunct : conjuncts) {
        Set<String> t = typesOf(conjunct);
        if (t != null) {
          return t;
        }
      }
      return null;
    }
    Matcher m = EQUALS.matcher(e);
    if (m.matches() || (m = EQUALS_REVERSED.matcher(e)).matches()) {
      return Set.of(m.group(1) != null ? m.group(1) : m.group(2));
    }
    m = IN.matcher(e);
    if (m.matches()) {
      Set<String> in = new HashSet<>();
      for (String item : split(m.group(1), ",")) {
        Matcher lit = LITERAL.matcher(item);
        if (!lit.matches()) {
          return null;
        }
        in.add(lit.group(1) != null ? lit.group(1) : lit.group(2));
      }
      return in;
    }
    return null;
  }

  /** Removes parentheses around the whole expression. */
  private static String strip(String expression) {
    String e = expression.trim();
    while (e.startsWith("(") && e.endsWith(")") && balanced(e.substring(1, e.length() - 1))) {
      e = e.substring(1, e.length() - 1).trim();
    }
    return e;
  }

  private static boolean balanced(String s) {
    return DrlScanner.scan(s, new DrlScanner.Listener() {}) == 0;
  }

  /** Splits on a separator outside quotes, comments and parentheses. */
  private static List<String> split(String s, String separator) {
    List<String> parts = new ArrayList<>();
    int[] from = {0};
    DrlScanner.scan(
        s,
        new DrlScanner.Listener() {
          @Override
          public void code(int i, int depth) {
            if (depth == 0 && i >= from[0] && s.startsWith(separator, i)) {
              parts.add(s.substring(from[0], i));
              from[0] = i + separator.length();
            }
          }
        });
    parts.add(s.substring(from[0]));
    return parts;
  }

  /** Accumulates what the patterns say. */
  private static final class Walk {
    final Set<String> types = new HashSet<>();
    boolean all;
    int eventPatterns;

    void descr(BaseDescr d) {
      if (d == null) {
        return;
      }
      if (d instanceof PatternDescr p) {
        pattern(p);
      } else if (d instanceof AccumulateDescr acc) {
        descr(acc.getInput());
      } else if (d instanceof CollectDescr collect) {
        descr(collect.getInputPattern());
      } else if (d instanceof ConditionalElementDescr ce) {
        for (BaseDescr child : ce.getDescrs()) {
          descr(child);
        }
      }
    }

    void pattern(PatternDescr p) {
      if (p == null) {
        return;
      }
      PatternSourceDescr source = p.getSource();
      if (source instanceof FromDescr || source instanceof WindowReferenceDescr) {
        // Not fed from working memory (a "from" expression), or typed by its window declaration.
        descr(source instanceof WindowReferenceDescr ? null : source);
        return;
      }
      descr(source);
      String objectType = p.getObjectType();
      if (objectType == null) {
        return;
      }
      if (objectType.equals("Object") || objectType.equals("java.lang.Object")) {
        eventPatterns++;
        all = true;
        return;
      }
      if (!objectType.equals("Event") && !objectType.equals("io.activityservice.rules.Event")) {
        return;
      }
      eventPatterns++;
      for (BaseDescr constraint : p.getDescrs()) {
        if (constraint instanceof ExprConstraintDescr expr) {
          Set<String> t = typesOf(expr.getExpression());
          if (t != null) {
            types.addAll(t);
            return;
          }
        }
      }
      all = true;
    }
  }
}
