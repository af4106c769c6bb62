package io.activityservice.channel.http;

import io.activityservice.channel.support.Futures;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Bounds the requests in flight per webhook host, so that one slow host cannot take every
 * connection and thread: at most {@code maxInFlight} requests run per host; further ones wait in
 * that host's FIFO queue of at most {@code maxQueued} entries and are refused at once beyond it.
 * When a request finishes, the host's next waiting one starts (on the executor, never on the
 * finishing thread, so a long queue cannot nest calls). A waiting send whose future completes
 * meanwhile (the caller cancelled it, or timed it out) leaves the queue and is never sent;
 * cancelling a running send cancels its request. Hosts without requests are forgotten. Thread-safe.
 */
final class PerHostLimiter {

  private final int maxInFlight;
  private final int maxQueued;
  private final Executor executor;
  private final ConcurrentHashMap<String, Host> hosts = new ConcurrentHashMap<>();

  /** One host's slots and queue; guarded by its own monitor. */
  private static final class Host {
    final String name;
    final LinkedHashSet<Pending<?>> queue = new LinkedHashSet<>();
    int inFlight;
    boolean retired;

    Host(String name) {
      this.name = name;
    }
  }

  /**
   * A send and the future its caller holds. Identity semantics: two sends are never "equal" in the
   * queue.
   */
  private static final class Pending<T> {
    final Supplier<CompletableFuture<T>> send;
    final CompletableFuture<T> result = new CompletableFuture<>();

    Pending(Supplier<CompletableFuture<T>> send) {
      this.send = send;
    }

    CompletableFuture<T> result() {
      return result;
    }

    Supplier<CompletableFuture<T>> send() {
      return send;
    }
  }

  PerHostLimiter(int maxInFlight, int maxQueued, Executor executor) {
    this.maxInFlight = maxInFlight;
    this.maxQueued = maxQueued;
    this.executor = executor;
  }

  /**
   * Runs {@code send} for {@code host} now or once a slot is free.
   *
   * @param host the host and port requests go to, e.g. {@code hooks.example.com:443}; used in
   *     messages
   * @return completes with the send's outcome; fails at once with a {@link
   *     RejectedExecutionException} if the host's queue is full
   */
  <T> CompletableFuture<T> submit(String host, Supplier<CompletableFuture<T>> send) {
    Pending<T> pending = new Pending<>(send);
    while (true) {
      Host h = hosts.computeIfAbsent(host, Host::new);
      boolean start;
      synchronized (h) {
        if (h.retired) {
          continue; // forgotten meanwhile: take the new one
        }
        if (h.inFlight < maxInFlight) {
          h.inFlight++;
          start = true;
        } else if (h.queue.size() < maxQueued) {
          h.queue.add(pending);
          start = false;
        } else {
          return CompletableFuture.failedFuture(
              new RejectedExecutionException(
                  "webhook host "
                      + host
                      + " has "
                      + maxInFlight
                      + " requests in flight and "
                      + maxQueued
                      + " waiting"
                      + " (activity.channels.http.max-concurrency-per-host / max-queued-per-host); send refused"));
        }
      }
      if (start) {
        run(h, pending);
      } else {
        pending
            .result()
            .whenComplete(
                (ok, error) -> {
                  synchronized (h) {
                    h.queue.remove(pending); // cancelled or timed out while waiting: never sent
                  }
                });
      }
      return pending.result();
    }
  }

  /** Requests in flight to {@code host} now. For tests and metrics. */
  int inFlight(String host) {
    Host h = hosts.get(host);
    if (h == null) {
      return 0;
    }
    synchronized (h) {
      return h.inFlight;
    }
  }

  private <T> void run(Host host, Pending<T> pending) {
    if (pending.result().isDone()) {
      release(host);
      return;
    }
    CompletableFuture<T> request;
    try {
      request = pending.send().get();
    } catch (RuntimeException e) {
      request = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> running = request;
    pending
        .result()
        .whenComplete(
            (ok, error) -> {
              if (pending.result().isCancelled()) {
                running.cancel(true);
              }
            });
    running.whenComplete(
        (ok, error) -> {
          if (error == null) {
            pending.result().complete(ok);
          } else {
            pending.result().completeExceptionally(Futures.unwrap(error));
          }
          release(host);
        });
  }

  /** Frees a slot: hands it to the host's next waiting send, or forgets an idle host. */
  private void release(Host host) {
    while (true) {
      Pending<?> next = null;
      synchronized (host) {
        Iterator<Pending<?>> waiting = host.queue.iterator();
        if (waiting.hasNext()) {
          next = waiting.next();
          waiting.remove();
        } else if (--host.inFlight == 0) {
          host.retired = true;
          hosts.remove(host.name, host);
        }
      }
      if (next == null) {
        return;
      }
      Pending<?> start = next;
      try {
        executor.execute(() -> run(host, start));
        return;
      } catch (
          RejectedExecutionException e) { // the adapter is closed: fail it, free the slot again
        start
            .result()
            .completeExceptionally(
                new IllegalStateException(
                    "the http channel adapter was closed before the event was sent", e));
      }
    }
  }
}
