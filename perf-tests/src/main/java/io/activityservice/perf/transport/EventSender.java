package io.activityservice.perf.transport;

import io.cloudevents.CloudEvent;
import java.util.concurrent.CompletableFuture;

/** Sends events into one channel (the producer side of a scenario). Thread-safe. */
public interface EventSender extends AutoCloseable {

  /** Hands one event to the transport; the future completes when the transport accepted it. */
  CompletableFuture<Void> send(CloudEvent event);

  /** Flushes and releases resources; never throws. */
  @Override
  void close();
}
