package io.activityservice.channel.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ContiguousAcksTest {

  @Test
  void commitsOnlyTheAcknowledgedPrefix() {
    ContiguousAcks<String> acks = new ContiguousAcks<>();
    for (long offset = 10; offset <= 13; offset++) {
      assertThat(acks.add(offset, "commit-" + offset)).isTrue();
    }
    assertThat(acks.ack(12)).isNull();
    assertThat(acks.ack(13)).isNull();
    assertThat(acks.ack(11)).isNull();
    assertThat(acks.ack(10)).isEqualTo("commit-13");
    assertThat(acks.size()).isZero();
  }

  @Test
  void inOrderAcksCommitEachRecord() {
    ContiguousAcks<String> acks = new ContiguousAcks<>();
    acks.add(0, "a");
    acks.add(1, "b");
    assertThat(acks.ack(0)).isEqualTo("a");
    assertThat(acks.ack(1)).isEqualTo("b");
  }

  @Test
  void gapsBetweenDeliveredOffsetsDoNotBlock() {
    ContiguousAcks<String> acks = new ContiguousAcks<>();
    acks.add(5, "five");
    acks.add(9, "nine"); // e.g. compacted away or a transaction marker in between
    assertThat(acks.ack(9)).isNull();
    assertThat(acks.ack(5)).isEqualTo("nine");
  }

  @Test
  void aTrackedOffsetIsNotHandedOutTwiceAndUnknownAcksAreIgnored() {
    ContiguousAcks<String> acks = new ContiguousAcks<>();
    assertThat(acks.add(3, "x")).isTrue();
    assertThat(acks.add(3, "again")).isFalse();
    assertThat(acks.ack(42)).isNull();
    assertThat(acks.ack(3)).isEqualTo("x");
    assertThat(acks.ack(3)).isNull();
  }

  @Test
  void releasedPrefixesWaitToBeCommittedTogether() {
    ContiguousAcks<String> acks = new ContiguousAcks<>();
    for (long offset = 0; offset < 5; offset++) {
      acks.add(offset, "commit-" + offset);
    }
    acks.ack(0);
    acks.ack(1);
    acks.ack(3);
    assertThat(acks.takeCommittable()).as("one commit covers 0 and 1").isEqualTo("commit-1");
    assertThat(acks.takeCommittable()).as("nothing new").isNull();
    acks.ack(2);
    acks.ack(4);
    assertThat(acks.takeCommittable()).isEqualTo("commit-4");
  }
}
