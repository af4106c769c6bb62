package io.activityservice.detector.esper.internal;

import com.espertech.esper.common.client.configuration.Configuration;
import com.espertech.esper.common.client.module.Module;
import com.espertech.esper.common.client.module.ModuleItem;
import com.espertech.esper.common.client.module.ParseException;
import com.espertech.esper.common.client.soda.EPStatementObjectModel;
import com.espertech.esper.compiler.client.EPCompileException;
import com.espertech.esper.compiler.client.EPCompilerProvider;
import io.activityservice.events.problem.InvalidInputException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The structural check of a detector's EPL before it is compiled: one statement, parsed to Esper's
 * object model and walked by {@link EplModelCheck}, which refuses everything that is not on {@link
 * EplAllowList}: imports, {@code uses}, inlined classes, scripts, expression declarations, {@code
 * create}/{@code on}/{@code insert into} statements, annotations, static calls on classes other
 * than {@code Math}, methods on values other than read-only and Esper built-in ones, {@code new} on
 * classes, and data windows above the configured bounds. It is one layer of the sandbox; {@link
 * EplSandbox} adds the compiler and runtime configuration behind it.
 */
public final class EplGuard {

  private final long maxWindowEvents;
  private final Duration maxWindowTime;

  /**
   * @param maxWindowEvents largest count a data window (and a {@code prior}, a pattern repeat or an
   *     {@code output every n events}) may hold
   * @param maxWindowTime longest time a data window (and an output rate) may span
   */
  public EplGuard(long maxWindowEvents, Duration maxWindowTime) {
    this.maxWindowEvents = maxWindowEvents;
    this.maxWindowTime = maxWindowTime;
  }

  /**
   * Checks one detector's EPL.
   *
   * @param epl the EPL as submitted
   * @param inputAliases the detector's stream aliases ({@code R} in {@code from R})
   * @param eventProperties the top-level properties of the input events ({@code id}, {@code
   *     data}...)
   * @throws InvalidInputException field {@code epl}, naming the refused construct and, where it can
   *     be found, its line and column
   */
  public void check(String epl, Set<String> inputAliases, Set<String> eventProperties) {
    int escape = EplText.unicodeEscapeOutsideStrings(epl);
    if (escape >= 0) {
      throw new InvalidInputException(
          "epl",
          EplText.positionAt(epl, escape)
              + "unicode escape "
              + epl.substring(escape, Math.min(epl.length(), escape + 6))
              + " outside a string literal is not allowed");
    }
    Module module;
    try {
      module = EPCompilerProvider.getCompiler().parseModule(epl);
    } catch (ParseException | IOException | RuntimeException | StackOverflowError e) {
      throw unparsable(e);
    }
    if (!module.getImports().isEmpty()) {
      throw refused(
          epl,
          "import",
          "import "
              + module.getImports().iterator().next()
              + " is not allowed: detectors cannot import classes");
    }
    if (!module.getUses().isEmpty()) {
      throw refused(
          epl,
          "uses",
          "uses "
              + module.getUses().iterator().next()
              + " is not allowed: a detector cannot depend on other EPL modules");
    }
    if (module.getName() != null) {
      throw refused(
          epl, "module", "module declaration 'module " + module.getName() + "' is not allowed");
    }
    List<ModuleItem> statements =
        module.getItems().stream().filter(i -> !i.isCommentOnly()).toList();
    // every statement is checked before they are counted, so that a message names the construct
    // that matters
    for (ModuleItem statement : statements) {
      EPStatementObjectModel model;
      try {
        model =
            EPCompilerProvider.getCompiler()
                .eplToModel(statement.getExpression(), new Configuration());
      } catch (EPCompileException | RuntimeException | StackOverflowError e) {
        // not checkable means not compiled: a statement the object model cannot represent is
        // refused as well
        throw unparsable(e);
      }
      try {
        new EplModelCheck(inputAliases, eventProperties, maxWindowEvents, maxWindowTime)
            .statement(model);
      } catch (EplModelCheck.Refusal r) {
        throw refused(epl, r.word(), r.getMessage());
      } catch (StackOverflowError e) {
        throw unparsable(e);
      }
    }
    if (statements.size() != 1) {
      ModuleItem second = statements.size() > 1 ? statements.get(1) : null;
      throw new InvalidInputException(
          "epl",
          (second == null ? "" : "line " + second.getLineNumber() + ": ")
              + "a detector is exactly one EPL statement, found "
              + statements.size());
    }
  }

  private static InvalidInputException unparsable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StackOverflowError) {
        return new InvalidInputException("epl", "the EPL is nested too deeply");
      }
    }
    return new InvalidInputException(
        "epl",
        "Esper could not compile the EPL: "
            + (e.getMessage() != null ? e.getMessage() : e.toString()));
  }

  private static InvalidInputException refused(String epl, String word, String reason) {
    return new InvalidInputException("epl", EplText.position(epl, word) + reason);
  }
}
