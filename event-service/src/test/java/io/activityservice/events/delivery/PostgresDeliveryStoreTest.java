package io.activityservice.events.delivery;

import io.activityservice.events.support.TestDatabases;
import javax.sql.DataSource;

/**
 * The delivery store's contract on a real PostgreSQL (embedded binaries, same Flyway migrations).
 */
class PostgresDeliveryStoreTest extends AbstractDeliveryStoreTest {

  @Override
  protected DataSource dataSource() {
    return TestDatabases.postgres();
  }
}
