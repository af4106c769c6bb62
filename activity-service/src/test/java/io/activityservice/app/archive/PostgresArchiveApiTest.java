package io.activityservice.app.archive;

import io.activityservice.app.support.Postgres;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Archive and replay over the REST API on a real PostgreSQL (partitioned archive storage). */
class PostgresArchiveApiTest extends AbstractArchiveApiTest {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    Postgres.register(registry, "archive");
  }
}
