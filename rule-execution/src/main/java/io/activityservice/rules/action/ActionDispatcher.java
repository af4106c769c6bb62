package io.activityservice.rules.action;

import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.channel.support.Futures;
import io.activityservice.events.log.LogSafe;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the actions rules ask for, off the rule engine's threads, with bounded concurrency: at most
 * {@code concurrency} actions are in flight (including their retries), at most {@code
 * queueCapacity} wait; beyond that an action fails at once as rejected (recorded like any failure).
 * Every action settles into exactly one {@link ExecutionRecord}. Never throws to the caller.
 */
public final class ActionDispatcher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ActionDispatcher.class);

  private final Map<String, ActionHandler> handlers = new HashMap<>();
  private final Semaphore permits;
  private final ArrayBlockingQueue<ActionRequest> pending;
  private final ExecutorService executor;
  private final int queueCapacity;

  public ActionDispatcher(
      Collection<? extends ActionHandler> handlers, int concurrency, int queueCapacity) {
    for (ActionHandler h : handlers) {
      ActionHandler previous = this.handlers.putIfAbsent(h.name(), h);
      if (previous != null) {
        throw new IllegalStateException(
            "two action handlers are named '"
                + h.name()
                + "': "
                + previous.getClass().getName()
                + " and "
                + h.getClass().getName()
                + "; rename one of them");
      }
    }
    this.permits = new Semaphore(concurrency);
    this.queueCapacity = queueCapacity;
    this.pending = new ArrayBlockingQueue<>(queueCapacity);
    this.executor = Executors.newFixedThreadPool(concurrency, DaemonThreads.factory("rule-action"));
  }

  /** Names of the known handlers, sorted. */
  public TreeSet<String> handlerNames() {
    return new TreeSet<>(handlers.keySet());
  }

  /** Queues an action; returns at once. */
  public void submit(ActionRequest request) {
    if (!pending.offer(request)) {
      settle(
          request,
          ActionResult.failed(
              0,
              "rejected: "
                  + queueCapacity
                  + " actions already wait (activity.rules.action-queue-capacity); raise it or activity.rules.action-concurrency"));
      return;
    }
    pump();
  }

  /** Actions waiting for a slot. */
  public int waiting() {
    return pending.size();
  }

  private void pump() {
    while (true) {
      if (!permits.tryAcquire()) {
        return;
      }
      ActionRequest next = pending.poll();
      if (next == null) {
        permits.release();
        if (pending.isEmpty()) {
          return;
        }
        continue;
      }
      try {
        executor.execute(() -> start(next));
      } catch (RejectedExecutionException e) {
        permits.release();
        settle(next, ActionResult.failed(0, "rejected: the service is shutting down"));
      }
    }
  }

  private void start(ActionRequest request) {
    CompletableFuture<ActionResult> result;
    ActionHandler handler = handlers.get(request.handler());
    if (handler == null) {
      result =
          CompletableFuture.completedFuture(
              ActionResult.failed(
                  0,
                  "no action handler named '"
                      + request.handler()
                      + "'; known handlers: "
                      + String.join(", ", handlerNames())));
    } else {
      try {
        result = handler.execute(request.params(), request.context());
        if (result == null) {
          result =
              CompletableFuture.completedFuture(
                  ActionResult.failed(1, "handler returned no result"));
        }
      } catch (RuntimeException e) {
        result = CompletableFuture.failedFuture(e);
      }
    }
    result.whenComplete(
        (r, error) -> {
          permits.release();
          settle(request, error == null ? r : ActionResult.failed(1, message(error)));
          pump();
        });
  }

  private static void settle(ActionRequest request, ActionResult result) {
    long durationMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - request.startNanos());
    ActionContext ctx = request.context();
    ExecutionRecord record =
        new ExecutionRecord(
            request.time(),
            ctx.firedRule(),
            ctx.event() == null ? null : ctx.event().getId(),
            request.handler(),
            result.succeeded() ? ExecutionRecord.SUCCEEDED : ExecutionRecord.FAILED,
            result.attempts(),
            durationMs,
            result.error());
    if (!result.succeeded()) {
      log.warn(
          "rule {} ({}): action {} failed after {} attempts: {}",
          ctx.rule(),
          LogSafe.message(ctx.firedRule()),
          LogSafe.message(request.handler()),
          result.attempts(),
          LogSafe.message(result.error()));
    }
    try {
      request.sink().accept(record);
    } catch (RuntimeException e) {
      log.warn("recording an execution of rule {} failed", ctx.rule(), e);
    }
  }

  /** The message of a failure, unwrapped from completion wrappers. */
  public static String message(Throwable error) {
    Throwable t = Futures.unwrap(error);
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  @Override
  public void close() {
    executor.shutdown();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
