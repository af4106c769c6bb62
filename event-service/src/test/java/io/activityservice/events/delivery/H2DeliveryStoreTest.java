package io.activityservice.events.delivery;

import io.activityservice.events.support.TestDatabases;
import javax.sql.DataSource;

/** The delivery store's contract on H2 (the embedded default). */
class H2DeliveryStoreTest extends AbstractDeliveryStoreTest {

  private final DataSource db = TestDatabases.newH2();

  @Override
  protected DataSource dataSource() {
    return db;
  }
}
