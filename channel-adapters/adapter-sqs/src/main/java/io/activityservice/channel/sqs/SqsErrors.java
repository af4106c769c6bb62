package io.activityservice.channel.sqs;

import io.activityservice.channel.support.Futures;
import java.util.concurrent.CancellationException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/** Classifies SDK failures. */
final class SqsErrors {

  private SqsErrors() {}

  /** Whether trying again later may succeed: I/O errors, throttling and 5xx answers. */
  static boolean isRetryable(Throwable t) {
    Throwable e = Futures.unwrap(t);
    if (e instanceof AwsServiceException ase) {
      return ase.isThrottlingException() || ase.statusCode() >= 500;
    }
    return e instanceof SdkClientException && !(e.getCause() instanceof CancellationException);
  }

  /** Whether the failure says the queue does not exist. */
  static boolean isQueueMissing(Throwable t) {
    Throwable e = Futures.unwrap(t);
    if (e instanceof QueueDoesNotExistException) {
      return true;
    }
    return e instanceof AwsServiceException ase
        && ase.awsErrorDetails() != null
        && String.valueOf(ase.awsErrorDetails().errorCode()).contains("NonExistentQueue");
  }

  /** A short description for logs. */
  static String describe(Throwable t) {
    Throwable e = Futures.unwrap(t);
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
