package io.activityservice.channel.sqs;

import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;

/** SQS rejected one entry of a batch request. */
public final class SqsBatchEntryException extends RuntimeException {

  private final String code;
  private final boolean senderFault;

  SqsBatchEntryException(BatchResultErrorEntry entry) {
    super(
        "SQS rejected the message: "
            + entry.code()
            + (entry.message() == null ? "" : " - " + entry.message())
            + (Boolean.TRUE.equals(entry.senderFault()) ? " (sender fault)" : ""));
    this.code = entry.code();
    this.senderFault = Boolean.TRUE.equals(entry.senderFault());
  }

  /** The SQS error code, e.g. {@code InternalError} or {@code InvalidMessageContents}. */
  public String code() {
    return code;
  }

  /** Whether SQS blames the request (retrying the same entry will not help). */
  public boolean senderFault() {
    return senderFault;
  }
}
