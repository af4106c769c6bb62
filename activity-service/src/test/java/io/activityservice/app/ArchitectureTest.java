package io.activityservice.app;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameEndingWith;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.activityservice.architecture.ArchitectureRules;
import io.activityservice.architecture.TableOwnership;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The project's architecture rules on activity-service's production classes (issue 22).
 *
 * <p>activity-service is the application that assembles the modules, adapters included: its {@code
 * *Configuration} classes may name a transport adapter; its controllers, security and console may
 * not.
 */
class ArchitectureTest {

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = ArchitectureRules.productionClasses();
  }

  @Test
  void noPackageCycles() {
    ArchitectureRules.NO_PACKAGE_CYCLES.check(classes);
  }

  @Test
  void internalPackagesStayInsideTheirParent() {
    ArchitectureRules.INTERNAL_STAYS_INSIDE_ITS_PARENT.check(classes);
  }

  @Test
  void onlyTheAssemblyNamesATransportAdapter() {
    // The assembly: the *Configuration classes, and the one bridge they create from a domain port
    // to an adapter
    // (the rules' WebhookPoster, and webhook connections' TokenClient, onto the http adapter's
    // guarded client).
    ArchitectureRules.NO_TRANSPORT_ADAPTER.check(
        classes.that(
            not(simpleNameEndingWith("Configuration"))
                .and(not(simpleName("HttpWebhookPoster")))
                .and(not(simpleName("HttpTokenClient")))));
  }

  @Test
  void readsOnlyItsOwnTables() {
    assertThat(TableOwnership.foreignTablesUsed(Path.of("")))
        .as(
            "tables of other modules named in activity-service's SQL (api_key and audit_event belong to the security"
                + " code: their migration moves from event-service's V6__security.sql into activity-service, issue 22"
                + " item 3)")
        .isEmpty();
  }
}
