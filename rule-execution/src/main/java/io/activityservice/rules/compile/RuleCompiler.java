package io.activityservice.rules.compile;

import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.events.scope.TypeScope;
import io.activityservice.rules.Actions;
import io.activityservice.rules.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.drools.compiler.builder.InternalKnowledgeBuilder;
import org.drools.compiler.compiler.DescrBuildError;
import org.drools.drl.ast.descr.PackageDescr;
import org.drools.drl.ast.descr.RuleDescr;
import org.drools.drl.ast.descr.TypeDeclarationDescr;
import org.drools.drl.parser.DrlParser;
import org.drools.drl.parser.DroolsError;
import org.drools.drl.parser.DroolsParserException;
import org.drools.kiesession.rulebase.InternalKnowledgeBase;
import org.drools.kiesession.rulebase.KnowledgeBaseFactory;
import org.kie.api.KieBaseConfiguration;
import org.kie.api.KieServices;
import org.kie.api.conf.EventProcessingOption;
import org.kie.internal.builder.KnowledgeBuilder;
import org.kie.internal.builder.KnowledgeBuilderConfiguration;
import org.kie.internal.builder.KnowledgeBuilderError;
import org.kie.internal.builder.KnowledgeBuilderFactory;
import org.kie.internal.builder.conf.LanguageLevelOption;

/**
 * Compiles a user's DRL into a stream-mode knowledge base, after {@link DrlGuard} accepted it (so
 * Drools never compiles code outside the allow-list). The user writes only rules: a header
 * (package, {@code import Event}, {@code import java.util.Map}, {@code global Actions actions}) is
 * prepended, and unless the DRL declares {@code Event} itself a footer declares it
 * {@code @role(event) @timestamp(time) @expires(<activity.rules.event-expiry>)}. Errors are
 * reported with line numbers of the user's DRL.
 */
public final class RuleCompiler {

  static final String HEADER =
      "package io.activityservice.rules.deployed;\n"
          + "import "
          + Event.class.getName()
          + ";\n"
          + "import java.util.Map;\n"
          + "global "
          + Actions.class.getName()
          + " actions;\n";
  static final int HEADER_LINES = 4;

  /** The DRL language level used to parse, check and build. */
  static final LanguageLevelOption LANGUAGE_LEVEL = LanguageLevelOption.DRL6;

  private final String footer;
  private final DrlGuard guard = new DrlGuard(LANGUAGE_LEVEL);
  private final ClassLoader classLoader = Event.class.getClassLoader();

  /**
   * @param eventExpiry how long after its time an event may be dropped from a session (Drools
   *     {@code @expires})
   */
  public RuleCompiler(Duration eventExpiry) {
    this.footer =
        "\ndeclare Event\n  @role(event)\n  @timestamp(time)\n  @expires("
            + eventExpiry.toMillis()
            + "ms)\nend\n";
  }

  /**
   * Compiles one rule set.
   *
   * @throws InvalidInputException with field {@code drl}: one error per construct {@link DrlGuard}
   *     refuses, e.g. {@code line 5: 'System.exit(..)': access to the JVM ... is not allowed}, or
   *     per Drools message, e.g. {@code line 3: ... mismatched input ...}
   */
  public CompiledRule compile(String name, String drl) {
    if (drl == null || drl.isBlank()) {
      throw new InvalidInputException(
          "drl",
          "is required: the rules' DRL, e.g. rule \"r\" when Event(type == \"t\") "
              + "then actions.run(\"log\", Map.of()); end");
    }
    guard.checkText(drl);
    LineMap lines = new LineMap(HEADER_LINES, drl);
    PackageDescr pkg = parse(HEADER + drl, lines);
    boolean declaresEvent =
        pkg.getTypeDeclarations().stream()
            .map(TypeDeclarationDescr::getTypeName)
            .anyMatch(t -> t.equals("Event") || t.equals(Event.class.getName()));
    String source = HEADER + drl + (declaresEvent ? "\n" : footer);
    if (!declaresEvent) {
      pkg = parse(source, lines);
    }
    // The guard checks the parsed rule set, and exactly that rule set is compiled: Drools does not
    // parse
    // the text a second time, so what was checked is what runs.
    List<ActionCall> actions = guard.checkParsed(pkg, source, drl, lines);

    KnowledgeBuilderConfiguration conf =
        KnowledgeBuilderFactory.newKnowledgeBuilderConfiguration(classLoader);
    conf.setOption(LANGUAGE_LEVEL);
    KnowledgeBuilder builder = KnowledgeBuilderFactory.newKnowledgeBuilder(conf);
    ((InternalKnowledgeBuilder) builder).addPackage(pkg);
    if (builder.hasErrors()) {
      List<FieldError> errors = new ArrayList<>();
      for (KnowledgeBuilderError e : builder.getErrors()) {
        String message = String.valueOf(e.getMessage());
        if (linesOf(e) != e.getLines()) {
          message =
              "in the consequence (the line of 'then' is given): "
                  + message.replaceFirst("^Rule Compilation error\\s*", "");
        }
        errors.add(new FieldError("drl", lines.describe(linesOf(e), message)));
      }
      throw new InvalidInputException(errors);
    }
    // Drools 10.1 deprecates this overload but offers no other public way to give the base the
    // rules' class loader.
    @SuppressWarnings("deprecation")
    KieBaseConfiguration kbConf = KieServices.get().newKieBaseConfiguration(null, classLoader);
    kbConf.setOption(EventProcessingOption.STREAM);
    InternalKnowledgeBase kieBase = KnowledgeBaseFactory.newKnowledgeBase(kbConf);
    kieBase.addPackages(builder.getKnowledgePackages());
    return new CompiledRule(name, drl, kieBase, TypeExtractor.extract(pkg), actions, TypeScope.ALL);
  }

  private static PackageDescr parse(String source, LineMap lines) {
    DrlParser parser = new DrlParser(LANGUAGE_LEVEL);
    PackageDescr pkg;
    try {
      pkg = parser.parse(false, source);
    } catch (DroolsParserException e) {
      throw new InvalidInputException(
          "drl", lines.describe(new int[] {e.getLineNumber()}, e.getMessage()));
    }
    if (parser.hasErrors() || pkg == null) {
      List<FieldError> errors = new ArrayList<>();
      for (DroolsError e : parser.getErrors()) {
        errors.add(new FieldError("drl", lines.describe(e.getLines(), e.getMessage())));
      }
      if (errors.isEmpty()) {
        errors.add(new FieldError("drl", "could not be parsed"));
      }
      throw new InvalidInputException(errors);
    }
    return pkg;
  }

  /** Consequence errors point at the {@code then} line (Drools reports the rule's first line). */
  private static int[] linesOf(KnowledgeBuilderError e) {
    if (e instanceof DescrBuildError d
        && d.getDescr() instanceof RuleDescr rule
        && rule.getConsequenceLine() > 0
        && String.valueOf(e.getMessage()).startsWith("Rule Compilation error")) {
      return new int[] {rule.getConsequenceLine()};
    }
    return e.getLines();
  }
}
