package io.activityservice.events.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.events.support.TestDatabases;
import java.util.List;
import javax.sql.DataSource;

/**
 * Archives and replays on PostgreSQL: events partitioned by archive and day, retention drops whole
 * partitions.
 */
class PostgresArchiveTest extends AbstractArchiveTest {

  @Override
  protected DataSource dataSource() {
    return TestDatabases.postgres();
  }

  @Override
  void checkPartitionsDropped(List<String> before, List<String> after, Archive archive) {
    String prefix = "archived_event_a" + archive.id() + "_d";
    assertThat(before).contains(prefix + "20261101", prefix + "20261102", prefix + "20261105");
    assertThat(after)
        .doesNotContain(prefix + "20261101", prefix + "20261102")
        .contains(prefix + "20261103", prefix + "20261104", prefix + "20261105");
  }
}
