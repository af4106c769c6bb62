package io.activityservice.app.config;

import io.activityservice.events.schema.ModuleMigrations;
import io.activityservice.events.schema.ModuleSchema;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Each module's migrations, run by its own Flyway with its own history table (docs/migrations.md).
 *
 * <p>Spring Boot's Flyway keeps its role (the {@code spring.flyway.*} settings, and running before
 * any bean that uses the database); this strategy replaces its single migration by {@link
 * ModuleMigrations} over every {@link ModuleSchema} bean, which each module's auto-configuration
 * declares (events, detector, rules; security in the security configuration).
 */
@Configuration(proxyBeanMethods = false)
class ModuleSchemaConfiguration {

  @Bean
  FlywayMigrationStrategy moduleMigrations(ObjectProvider<ModuleSchema> schemas) {
    return flyway ->
        new ModuleMigrations(flyway.getConfiguration(), schemas.orderedStream().toList()).migrate();
  }
}
