package io.activityservice.perf.transport;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.activityservice.channel.support.DaemonThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A webhook served by the runner that answers every request with {@code 503} after a delay, like an
 * overloaded subscriber: the answers are sent from a timer, so requests waiting for their answer
 * hold no thread (thousands can wait at once). Counts requests and the most waiting at once.
 */
public final class FailingWebhook implements AutoCloseable {

  private final HttpServer server;
  private final ScheduledExecutorService timer;
  private final Duration delay;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger maxOpen = new AtomicInteger();

  /** Starts a server on a free port of 127.0.0.1 that answers 503 after {@code delay}. */
  public FailingWebhook(Duration delay) {
    this.delay = delay;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("perf-failing-webhook-timer"));
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4096);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // Two threads only read requests and schedule the answer; none waits for it.
    server.setExecutor(
        Executors.newFixedThreadPool(2, DaemonThreads.named("perf-failing-webhook")));
    server.createContext("/", this::handle);
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    exchange.getRequestBody().readAllBytes();
    requests.incrementAndGet();
    maxOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
    timer.schedule(
        () -> {
          try {
            exchange.sendResponseHeaders(503, -1);
          } catch (IOException e) {
            // the client gave up first
          } finally {
            open.decrementAndGet();
            exchange.close();
          }
        },
        delay.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** The URL of {@code path} on this server, e.g. {@code http://127.0.0.1:41234/hook}. */
  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** The delay before each 503. */
  public Duration delay() {
    return delay;
  }

  /** Requests received so far. */
  public long requests() {
    return requests.get();
  }

  /** Most requests waiting for their answer at once. */
  public int maxConcurrent() {
    return maxOpen.get();
  }

  /** Stops the server at once (waiting requests get their connection closed). */
  @Override
  public void close() {
    server.stop(0);
    timer.shutdownNow();
  }
}
