package io.activityservice.events.persistence;

import io.activityservice.events.support.TestDatabases;
import javax.sql.DataSource;

/** The repository contract on H2 (the embedded default database). */
class H2RepositoryTest extends AbstractRepositoryTest {

  private final DataSource ds = TestDatabases.newH2();

  @Override
  protected DataSource dataSource() {
    return ds;
  }
}
