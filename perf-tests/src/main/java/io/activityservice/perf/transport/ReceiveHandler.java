package io.activityservice.perf.transport;

/** Called by a {@link Listener} for every received event, with the event's CloudEvents id. */
@FunctionalInterface
public interface ReceiveHandler {

  /** One event arrived at {@code nanoTime} (the receiver's {@link System#nanoTime()}). */
  void received(String id, long nanoTime);
}
