package io.activityservice.app.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP webhook that answers every request with 503 after a delay (or, once {@link
 * #heal()}ed, 204 at once), counting requests per CloudEvent id. Answers are sent from a timer, not
 * a thread per request, so thousands of requests can wait at once, like a slow overloaded server.
 */
public final class SlowFailingWebhook implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
  private final Duration delay;
  private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> accepted = new ConcurrentHashMap<>();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger maxOpen = new AtomicInteger();
  private volatile boolean healthy;

  public SlowFailingWebhook(Duration delay) {
    this.delay = delay;
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8192);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(Executors.newFixedThreadPool(8));
    server.createContext("/", this::handle);
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes();
    String id = eventId(body);
    if (healthy) {
      accepted.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
      return;
    }
    requests.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
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

  private static String eventId(byte[] body) {
    try {
      JsonNode n = JSON.readTree(body);
      return n.path("id").asText("?");
    } catch (IOException e) {
      return "?";
    }
  }

  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** From now on answer 204 at once. */
  public void heal() {
    healthy = true;
  }

  /** Failed (503) requests per event id. */
  public Map<String, AtomicInteger> failedRequests() {
    return requests;
  }

  /** Accepted (204) requests per event id, after {@link #heal()}. */
  public Map<String, AtomicInteger> acceptedRequests() {
    return accepted;
  }

  /** Most requests waiting for an answer at once. */
  public int maxConcurrent() {
    return maxOpen.get();
  }

  @Override
  public void close() {
    server.stop(0);
    timer.shutdownNow();
  }
}
