package io.activityservice.events.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The dedup filter's bookkeeping: first copy wins, failures are forgotten, bounds and the window
 * hold.
 */
class DuplicateFilterTest {

  /** A claim whose routing settles when the test says so. */
  private static final class TestClaim extends DuplicateFilter.Claim {
    boolean settled;

    TestClaim(String source, String id) {
      super(source, id);
    }

    @Override
    boolean isSettled() {
      return settled;
    }
  }

  @Test
  void theFirstCopyIsRoutedAndLaterCopiesGetIt() {
    DuplicateFilter filter = new DuplicateFilter(Duration.ofMinutes(10), 100);
    TestClaim first = new TestClaim("/s", "1");
    assertThat(filter.claim(first)).isNull();
    assertThat(filter.claim(new TestClaim("/s", "1"))).isSameAs(first);
    assertThat(filter.claim(new TestClaim("/other", "1"))).as("identity is (source, id)").isNull();
    assertThat(filter.size()).isEqualTo(2);
  }

  @Test
  void aForgottenCopyIsRoutedAgainAndItsExpiryDoesNotDropTheNewOne() {
    DuplicateFilter filter = new DuplicateFilter(Duration.ofMinutes(10), 2);
    TestClaim failed = new TestClaim("/s", "1");
    filter.claim(failed);
    filter.forget(failed);
    TestClaim again = new TestClaim("/s", "1");
    assertThat(filter.claim(again)).as("redelivery after a failure is new").isNull();
    again.settled = true;
    // Push the forgotten claim out of the bounded list (2 entries): the map must keep the newer
    // copy.
    TestClaim other = new TestClaim("/s", "x");
    other.settled = true;
    filter.claim(other);
    assertThat(filter.claim(new TestClaim("/s", "1"))).isSameAs(again);
  }

  @Test
  void pastTheBoundTheOldestSettledAreForgottenButOneStillRoutingIsKept() {
    DuplicateFilter filter = new DuplicateFilter(Duration.ofMinutes(10), 3);
    TestClaim routing = new TestClaim("/s", "routing");
    filter.claim(routing);
    for (int i = 0; i < 10; i++) {
      TestClaim c = new TestClaim("/s", "e" + i);
      c.settled = true;
      filter.claim(c);
    }
    assertThat(filter.claim(new TestClaim("/s", "routing")))
        .as("still routing: remembered")
        .isSameAs(routing);
    assertThat(filter.claim(new TestClaim("/s", "e0"))).as("oldest settled: forgotten").isNull();
    assertThat(filter.size()).isLessThanOrEqualTo(5);
  }

  @Test
  void settledEntriesExpireAfterTheWindow() {
    DuplicateFilter filter = new DuplicateFilter(Duration.ofMillis(50), 100);
    TestClaim c = new TestClaim("/s", "1");
    c.settled = true;
    filter.claim(c);
    await()
        .pollDelay(Duration.ofMillis(80))
        .until(() -> true); // the window passes; expiry runs on the next claim
    filter.claim(new TestClaim("/s", "2"));
    assertThat(filter.claim(new TestClaim("/s", "1"))).isNull();
  }

  @Test
  void aWindowOfZeroRemembersNothing() {
    DuplicateFilter filter = new DuplicateFilter(Duration.ZERO, 100);
    assertThat(filter.claim(new TestClaim("/s", "1"))).isNull();
    assertThat(filter.claim(new TestClaim("/s", "1"))).isNull();
    assertThat(filter.size()).isZero();
  }
}
