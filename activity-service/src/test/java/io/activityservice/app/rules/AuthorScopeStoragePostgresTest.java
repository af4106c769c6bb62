package io.activityservice.app.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.app.support.Postgres;
import io.activityservice.detector.ClockMode;
import io.activityservice.detector.DetectorDefinition;
import io.activityservice.detector.DetectorSchema;
import io.activityservice.detector.internal.DetectorRepository;
import io.activityservice.events.schema.EventsSchema;
import io.activityservice.events.schema.ModuleMigrations;
import io.activityservice.events.scope.TypeScope;
import io.activityservice.rules.internal.RuleRepository;
import io.activityservice.rules.store.RuleDefinition;
import io.activityservice.rules.store.RulesSchema;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The author-scope columns (V8_1 on {@code rule}, V8_2 on {@code detector}) on a real PostgreSQL:
 * the migrations apply after the existing ones, a scope round-trips, and rows without one (stored
 * before, or by unscoped authors) read back as unscoped. The same repositories run on H2 in the
 * module tests.
 */
class AuthorScopeStoragePostgresTest {

  @Test
  void scopesAreStoredAndRowsWithoutOneAreUnscoped() {
    String url = Postgres.createDatabase("scopes_" + Long.toHexString(System.nanoTime()));
    DriverManagerDataSource ds = new DriverManagerDataSource(url, "postgres", "postgres");
    ModuleMigrations.on(ds, EventsSchema.SCHEMA, DetectorSchema.SCHEMA, RulesSchema.SCHEMA)
        .migrate();
    JdbcClient jdbc = JdbcClient.create(ds);
    TypeScope scope = TypeScope.of(List.of("com.a.*", "com.shared.event"), "scope");
    OffsetDateTime now = OffsetDateTime.now().truncatedTo(ChronoUnit.MICROS);

    RuleRepository rules = new RuleRepository(jdbc);
    rules.insert(
        new RuleDefinition("scoped", "rule \"r\" when Event() then end", 1, now, now, null, scope));
    rules.insert(new RuleDefinition("unscoped", "rule \"r\" when Event() then end", 1, now, now));
    assertThat(rules.find("scoped").orElseThrow().authorScope()).isEqualTo(scope);
    assertThat(rules.find("unscoped").orElseThrow().authorScope()).isNull();
    assertThat(rules.find("unscoped").orElseThrow().effectiveScope()).isEqualTo(TypeScope.ALL);
    RuleDefinition old = rules.find("unscoped").orElseThrow();
    assertThat(rules.update(new RuleDefinition("unscoped", old.drl(), 2, now, now, null, scope), 1))
        .isTrue();
    assertThat(rules.find("unscoped").orElseThrow().authorScope()).isEqualTo(scope);

    DetectorRepository detectors = new DetectorRepository(jdbc);
    detectors.insert(
        new DetectorDefinition(
            "scoped",
            Map.of("R", "com.a.reading"),
            "select * from R",
            "com.a.out",
            ClockMode.EVENT_TIME,
            now,
            null,
            scope));
    detectors.insert(
        new DetectorDefinition(
            "unscoped",
            Map.of("R", "com.a.reading"),
            "select * from R",
            "com.a.out",
            ClockMode.EVENT_TIME,
            now));
    assertThat(detectors.find("scoped").orElseThrow().authorScope()).isEqualTo(scope);
    assertThat(detectors.find("unscoped").orElseThrow().authorScope()).isNull();
  }
}
