package io.activityservice.rules.compile;

import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.rules.compile.internal.DescrCheck;
import io.activityservice.rules.compile.internal.Refusal;
import io.activityservice.rules.compile.internal.SourceCheck;
import java.util.Comparator;
import java.util.List;
import org.drools.drl.ast.descr.PackageDescr;
import org.kie.internal.builder.conf.LanguageLevelOption;

/**
 * Keeps rules inside the allow-list: a rule's DRL may only read events, compute with strings,
 * numbers and maps, and call {@code actions.run}. Drools has no sandbox (the Java Security Manager
 * is gone from JDK 24, CVE-2013-6468), and a consequence is Java that runs inside the service, so
 * the guard checks every part of a rule set before Drools compiles any of it:
 *
 * <ol>
 *   <li>{@link #checkText}: the raw text (unicode escapes, text blocks), before anything parses it;
 *   <li>{@link #checkParsed}: the parsed rule set, the exact {@link PackageDescr} the builder then
 *       compiles (imports, globals, functions, declarations, attributes, annotations, conditions,
 *       consequences), with every piece of code parsed by JavaParser and walked against the
 *       allow-list;
 *   <li>and, last, every identifier of the text against a list of names that have no business in a
 *       rule ({@code System}, {@code Class}, {@code exec}...), in case a parser reads the text
 *       differently from Drools.
 * </ol>
 *
 * A refusal is an {@link InvalidInputException} on field {@code drl}, one entry per finding, each
 * {@code line N: 'construct': reason} with the line of the user's DRL.
 */
public final class DrlGuard {

  private final LanguageLevelOption languageLevel;

  /**
   * @param languageLevel the DRL language level the rule set is parsed and built with
   */
  public DrlGuard(LanguageLevelOption languageLevel) {
    this.languageLevel = languageLevel;
  }

  /**
   * Checks the user's DRL as text, before it is parsed.
   *
   * @throws InvalidInputException on field {@code drl} when it holds unicode escapes or text blocks
   */
  public void checkText(String userDrl) {
    refuseIfAny(SourceCheck.lexical(userDrl), line -> line);
  }

  /**
   * Checks the parsed rule set and the text it came from.
   *
   * @param pkg the rule set parsed from {@code source}; exactly this is compiled afterwards
   * @param source the compiled source: header + the user's DRL (+ footer)
   * @param userDrl the user's DRL
   * @param lines maps lines of {@code source} to lines of {@code userDrl}
   * @return the rule set's {@code actions.run(..)} calls, with lines of the user's DRL
   * @throws InvalidInputException on field {@code drl} naming each construct that is not allowed
   *     and its line
   */
  List<ActionCall> checkParsed(PackageDescr pkg, String source, String userDrl, LineMap lines) {
    DescrCheck.Result result = DescrCheck.check(pkg, source, languageLevel);
    refuseIfAny(result.refusals(), lines::toUser);
    refuseIfAny(SourceCheck.deniedNames(userDrl), line -> line);
    return result.actions().stream()
        .map(a -> new ActionCall(lines.toUser(a.line()), a.handler(), a.params()))
        .toList();
  }

  private static void refuseIfAny(
      List<Refusal> refusals, java.util.function.IntUnaryOperator toUserLine) {
    if (refusals.isEmpty()) {
      return;
    }
    List<FieldError> errors =
        refusals.stream()
            .sorted(Comparator.comparingInt(Refusal::line))
            .map(
                r ->
                    new FieldError(
                        "drl",
                        (r.line() > 0 ? "line " + toUserLine.applyAsInt(r.line()) + ": " : "")
                            + r.describe()))
            .distinct()
            .toList();
    throw new InvalidInputException(errors);
  }
}
