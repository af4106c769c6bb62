package io.activityservice.events.delivery;

import io.activityservice.events.support.TestDatabases;
import javax.sql.DataSource;

/** Ordering per key on a real PostgreSQL (embedded binaries, same Flyway migrations). */
class PostgresOrderingTest extends AbstractOrderingTest {

  @Override
  protected DataSource dataSource() {
    return TestDatabases.postgres();
  }
}
