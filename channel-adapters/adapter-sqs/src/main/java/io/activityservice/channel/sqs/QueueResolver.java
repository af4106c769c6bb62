package io.activityservice.channel.sqs;

import io.activityservice.channel.support.Futures;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Resolves queue names to queue URLs with GetQueueUrl (creating missing queues if configured) and
 * caches the answers. Failed look-ups are not cached, so the next call tries again.
 */
final class QueueResolver {

  private static final Logger log = LoggerFactory.getLogger(QueueResolver.class);

  private final SqsAsyncClient client;
  private final boolean createQueues;
  private final Map<String, CompletableFuture<String>> urls = new ConcurrentHashMap<>();

  QueueResolver(SqsAsyncClient client, boolean createQueues) {
    this.client = client;
    this.createQueues = createQueues;
  }

  /** The URL of a queue given by name or URL. Never throws. */
  CompletableFuture<String> url(String queue) {
    if (SqsQueues.isUrl(queue)) {
      return CompletableFuture.completedFuture(queue);
    }
    CompletableFuture<String> cached = urls.get(queue);
    if (cached != null) {
      return cached;
    }
    CompletableFuture<String> mine = new CompletableFuture<>();
    CompletableFuture<String> raced = urls.putIfAbsent(queue, mine);
    if (raced != null) {
      return raced;
    }
    lookup(queue)
        .whenComplete(
            (url, error) -> {
              if (error != null) {
                urls.remove(queue, mine);
                mine.completeExceptionally(Futures.unwrap(error));
              } else {
                mine.complete(url);
              }
            });
    return mine;
  }

  private CompletableFuture<String> lookup(String name) {
    try {
      return client
          .getQueueUrl(r -> r.queueName(name))
          .thenApply(r -> r.queueUrl())
          .exceptionallyCompose(
              e ->
                  createQueues && SqsErrors.isQueueMissing(e)
                      ? create(name)
                      : CompletableFuture.failedFuture(e));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<String> create(String name) {
    log.info("creating SQS queue {}", name);
    return client
        .createQueue(
            r -> {
              r.queueName(name);
              if (SqsQueues.isFifo(name)) {
                r.attributes(Map.of(QueueAttributeName.FIFO_QUEUE, "true"));
              }
            })
        .thenApply(r -> r.queueUrl());
  }
}
