package io.activityservice.events.persistence;

import io.activityservice.events.support.TestDatabases;
import javax.sql.DataSource;

/** The repository contract on a real PostgreSQL (embedded binaries, same Flyway migrations). */
class PostgresRepositoryTest extends AbstractRepositoryTest {

  @Override
  protected DataSource dataSource() {
    return TestDatabases.postgres();
  }
}
