package io.activityservice.events.delivery;

import io.activityservice.events.support.TestDatabases;
import javax.sql.DataSource;

/** Ordering per key on H2 (the embedded default). */
class H2OrderingTest extends AbstractOrderingTest {

  private final DataSource db = TestDatabases.newH2();

  @Override
  protected DataSource dataSource() {
    return db;
  }
}
