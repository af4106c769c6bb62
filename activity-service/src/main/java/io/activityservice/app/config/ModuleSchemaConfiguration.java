package io.activityservice.app.config;

import io.activityservice.app.security.SecuritySchema;
import io.activityservice.detector.DetectorSchema;
import io.activityservice.events.schema.EventsSchema;
import io.activityservice.events.schema.ModuleMigrations;
import io.activityservice.events.schema.ModuleSchema;
import io.activityservice.rules.store.RulesSchema;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Each module's migrations, run by its own Flyway with its own history table (docs/migrations.md).
 *
 * <p>Spring Boot's Flyway keeps its role (the {@code spring.flyway.*} settings, and running before any bean that
 * uses the database); this strategy replaces its single migration by {@link ModuleMigrations} over every
 * {@link ModuleSchema} bean. The schema beans belong in their modules' auto-configurations (events, detector,
 * rules; security with the security configuration); they are declared here until those exist.
 */
@Configuration(proxyBeanMethods = false)
class ModuleSchemaConfiguration {

  @Bean
  ModuleSchema eventsSchema() {
    return EventsSchema.SCHEMA;
  }

  @Bean
  ModuleSchema detectorSchema() {
    return DetectorSchema.SCHEMA;
  }

  @Bean
  ModuleSchema rulesSchema() {
    return RulesSchema.SCHEMA;
  }

  @Bean
  ModuleSchema securitySchema() {
    return SecuritySchema.SCHEMA;
  }

  @Bean
  FlywayMigrationStrategy moduleMigrations(ObjectProvider<ModuleSchema> schemas) {
    return flyway -> new ModuleMigrations(flyway.getConfiguration(), schemas.orderedStream().toList()).migrate();
  }
}
