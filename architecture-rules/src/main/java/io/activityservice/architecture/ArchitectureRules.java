package io.activityservice.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The architecture rules every module's {@code ArchitectureTest} checks against its own production
 * classes.
 *
 * <p>A module's test calls {@link #productionClasses()} (the classes its build just compiled, never
 * the upstream modules on its classpath) and checks the rules that apply to it, e.g.
 *
 * <pre>{@code
 * JavaClasses classes = ArchitectureRules.productionClasses();
 * ArchitectureRules.NO_PACKAGE_CYCLES.check(classes);
 * ArchitectureRules.INTERNAL_STAYS_INSIDE_ITS_PARENT.check(classes);
 * }</pre>
 */
public final class ArchitectureRules {

  /** The project's root package. */
  public static final String ROOT = "io.activityservice";

  /**
   * No two packages depend on each other, directly or through others (a parent and its child
   * included).
   */
  public static final ArchRule NO_PACKAGE_CYCLES =
      slices().matching(ROOT + ".(**)").should().beFreeOfCycles().allowEmptyShould(true);

  /**
   * A class in {@code x.y.internal} (or below it) is used only by classes in {@code x.y} or below:
   * implementation detail stays behind its package's public types, as in Micrometer and
   * Resilience4j.
   */
  public static final ArchRule INTERNAL_STAYS_INSIDE_ITS_PARENT =
      classes().should(useInternalPackagesOnlyFromTheirParent()).allowEmptyShould(true);

  /**
   * The SPI and the domain modules' core stay free of Spring (auto-configuration classes excepted).
   */
  public static final ArchRule FREE_OF_SPRING =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.springframework..")
          .allowEmptyShould(true);

  /**
   * Domain modules talk to transports through the SPI ({@code io.activityservice.channel}), never
   * an adapter.
   */
  public static final ArchRule NO_TRANSPORT_ADAPTER =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              ROOT + ".channel.http..",
              ROOT + ".channel.jms..",
              ROOT + ".channel.sqs..",
              ROOT + ".channel.stream..")
          .allowEmptyShould(true);

  /**
   * Transport adapters (and the embedded servers) use Spring only in their {@code
   * *AutoConfiguration} and {@code *Properties} classes (nested classes included): the adapter
   * itself is plain Java behind the SPI, usable without a Spring context.
   */
  public static final ArchRule SPRING_ONLY_IN_AUTO_CONFIGURATION =
      noClasses()
          .that(areOutsideAutoConfigurationAndProperties())
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.springframework..")
          .allowEmptyShould(true);

  private ArchitectureRules() {}

  private static DescribedPredicate<JavaClass> areOutsideAutoConfigurationAndProperties() {
    return new DescribedPredicate<>(
        "are not (nested in) an *AutoConfiguration or *Properties class") {
      @Override
      public boolean test(JavaClass c) {
        String top = c.getName();
        int nested = top.indexOf('$');
        top = top.substring(top.lastIndexOf('.') + 1, nested < 0 ? top.length() : nested);
        return !top.endsWith("AutoConfiguration") && !top.endsWith("Properties");
      }
    };
  }

  /** The production classes of the module whose tests run now: its {@code target/classes}. */
  public static JavaClasses productionClasses() {
    Path classes = Path.of("target", "classes");
    if (!Files.isDirectory(classes)) {
      throw new IllegalStateException(
          "no " + classes.toAbsolutePath() + ": run the module's tests from its directory");
    }
    return new ClassFileImporter().importPath(classes);
  }

  // Checked from the using side, so that a module using another module's internal class fails its
  // own test.
  private static ArchCondition<JavaClass> useInternalPackagesOnlyFromTheirParent() {
    return new ArchCondition<>(
        "use classes of an internal package only from inside that package's parent") {
      @Override
      public void check(JavaClass origin, ConditionEvents events) {
        String from = origin.getPackageName();
        for (Dependency d : origin.getDirectDependenciesFromSelf()) {
          String to = d.getTargetClass().getPackageName();
          int internal = to.indexOf(".internal");
          if (!to.startsWith(ROOT + ".")
              || internal < 0
              || !(to.endsWith(".internal") || to.startsWith(".internal.", internal))) {
            continue;
          }
          String parent = to.substring(0, internal);
          if (!from.equals(parent) && !from.startsWith(parent + ".")) {
            events.add(
                SimpleConditionEvent.violated(d, d.getDescription() + " (outside " + parent + ")"));
          }
        }
      }
    };
  }
}
