package io.activityservice.events.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.events.support.TestDatabases;
import java.util.List;
import javax.sql.DataSource;

/** Archives and replays on H2 (the embedded default): retention deletes rows. */
class H2ArchiveTest extends AbstractArchiveTest {

  private final DataSource h2 = TestDatabases.newH2();

  @Override
  protected DataSource dataSource() {
    return h2;
  }

  @Override
  void checkPartitionsDropped(List<String> before, List<String> after, Archive archive) {
    assertThat(before).isEmpty();
    assertThat(after).isEmpty();
  }
}
