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

  /**
   * One received request.
   *
   * @param headers the request headers, names in lower case
   * @param receivedAtNanos {@link System#nanoTime()} on arrival
   */
  public record Call(
      String path,
      String contentType,
      String body,
      java.util.Map<String, List<String>> headers,
      long receivedAtNanos) {

    public Call(String path, String contentType, String body) {
      this(path, contentType, body, java.util.Map.of(), 0);
    }

    /** The first value of a header, or {@code null}. */
    public String header(String name) {
      List<String> values = headers.get(name.toLowerCase(java.util.Locale.ROOT));
      return values == null || values.isEmpty() ? null : values.get(0);
    }
  }

  /**
   * Decides the answer to a request to one path instead of the default (204, or 503 while failures
   * are asked for).
   */
  @FunctionalInterface
  public interface Responder {
    /**
     * @param call the request
     * @param responseHeaders headers to send back (e.g. Retry-After)
     * @return the status; a 2xx records the call
     */
    int respond(Call call, com.sun.net.httpserver.Headers responseHeaders);
  }

  private final java.util.Map<String, Responder> responders =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final List<Call> attempts = new CopyOnWriteArrayList<>();

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
          long at = System.nanoTime();
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          java.util.Map<String, List<String>> headers = new java.util.HashMap<>();
          exchange
              .getRequestHeaders()
              .forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), List.copyOf(v)));
          Call call =
              new Call(
                  exchange.getRequestURI().getPath(),
                  exchange.getRequestHeaders().getFirst("Content-Type"),
                  body,
                  java.util.Map.copyOf(headers),
                  at);
          attempts.add(call);
          Responder responder = responders.get(call.path());
          if (responder != null) {
            int status = responder.respond(call, exchange.getResponseHeaders());
            if (status / 100 == 2) {
              calls.add(call);
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
            return;
          }
          AtomicInteger forPath = failuresByPath.get(exchange.getRequestURI().getPath());
          boolean fail =
              (forPath != null && forPath.getAndUpdate(n -> Math.max(0, n - 1)) > 0)
                  || failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
          if (!fail) {
            calls.add(call);
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

  /** Answers requests to {@code path} with {@code responder} from now on. */
  public void respond(String path, Responder responder) {
    responders.put(path, responder);
  }

  /** Every request to {@code path}, answered 2xx or not, in arrival order. */
  public List<Call> attempts(String path) {
    return attempts.stream().filter(c -> c.path().equals(path)).toList();
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
