package io.activityservice.channel.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResultEntry;

/** The one mapping of a batch answer to an outcome per entry ({@link SqsRequests#outcomes}). */
class SqsBatchOutcomesTest {

  private static BatchResultErrorEntry failed(String id, boolean senderFault) {
    return BatchResultErrorEntry.builder()
        .id(id)
        .code(senderFault ? "InvalidParameterValue" : "InternalError")
        .message("m")
        .senderFault(senderFault)
        .build();
  }

  @Test
  void eachEntryGetsItsOwnOutcomeInRequestOrder() {
    List<Batcher.Outcome> outcomes =
        SqsRequests.outcomes(
            4,
            List.of(
                DeleteMessageBatchResultEntry.builder().id("2").build(),
                DeleteMessageBatchResultEntry.builder().id("0").build()),
            DeleteMessageBatchResultEntry::id,
            List.of(failed("1", false), failed("3", true)));

    assertThat(outcomes).hasSize(4);
    assertThat(outcomes.get(0).ok()).isTrue();
    assertThat(outcomes.get(2).ok()).isTrue();
    assertThat(outcomes.get(1).ok()).isFalse();
    assertThat(outcomes.get(1).retryable()).as("SQS's own fault: retry").isTrue();
    assertThat(outcomes.get(1).error())
        .isInstanceOf(SqsBatchEntryException.class)
        .hasMessageContaining("InternalError");
    assertThat(outcomes.get(3).retryable())
        .as("the sender's fault: retrying will not help")
        .isFalse();
    assertThat(((SqsBatchEntryException) outcomes.get(3).error()).senderFault()).isTrue();
  }

  @Test
  void anEntryTheAnswerDoesNotMentionIsARetryableFailureNeverASuccess() {
    List<Batcher.Outcome> outcomes =
        SqsRequests.outcomes(
            3,
            List.of(
                DeleteMessageBatchResultEntry.builder().id("0").build(),
                DeleteMessageBatchResultEntry.builder().id("not-ours").build(),
                DeleteMessageBatchResultEntry.builder().id("7").build()),
            DeleteMessageBatchResultEntry::id,
            List.of());

    assertThat(outcomes.get(0).ok()).isTrue();
    assertThat(outcomes.subList(1, 3))
        .allSatisfy(
            o -> {
              assertThat(o.ok()).isFalse();
              assertThat(o.retryable()).isTrue();
              assertThat(o.error()).hasMessageContaining("no result");
            });
  }
}
