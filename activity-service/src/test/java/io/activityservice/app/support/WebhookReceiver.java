package io.activityservice.app.support;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real local HTTP server that records what webhooks receive. Can be told to fail the first N
 * calls.
 */
public final class WebhookReceiver implements AutoCloseable {

  /** One received request. */
  public record Call(String path, String contentType, String body) {}

  private final HttpServer server;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private final java.util.Map<String, AtomicInteger> failuresByPath =
      new java.util.concurrent.ConcurrentHashMap<>();

  public WebhookReceiver() {
    this(0);
  }

  /** A receiver on a given port (0: any free port). */
  public WebhookReceiver(int port) {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          AtomicInteger forPath = failuresByPath.get(exchange.getRequestURI().getPath());
          boolean fail =
              (forPath != null && forPath.getAndUpdate(n -> Math.max(0, n - 1)) > 0)
                  || failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
          if (!fail) {
            calls.add(
                new Call(
                    exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    body));
          }
          exchange.sendResponseHeaders(fail ? 503 : 204, -1);
          exchange.close();
        });
    server.start();
  }

  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  public List<Call> calls(String path) {
    return calls.stream().filter(c -> c.path().equals(path)).toList();
  }

  /** The next {@code n} requests are answered 503 and not recorded. */
  public void failNext(int n) {
    failuresLeft.set(n);
  }

  /** The next {@code n} requests to {@code path} are answered 503 and not recorded. */
  public void failNext(String path, int n) {
    failuresByPath.computeIfAbsent(path, p -> new AtomicInteger()).set(n);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
