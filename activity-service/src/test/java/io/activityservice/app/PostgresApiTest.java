package io.activityservice.app;

import io.activityservice.app.support.Postgres;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The same API tests on a real PostgreSQL (embedded binaries, same Flyway migrations). */
class PostgresApiTest extends AbstractApiTest {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    Postgres.register(registry, "api");
  }
}
