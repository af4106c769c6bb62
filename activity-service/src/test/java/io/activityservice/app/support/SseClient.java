package io.activityservice.app.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real-HTTP client of {@code GET /api/v1/events/stream}: reads server-sent events with {@code
 * java.net.http} and parses them. {@link #start()} reads on a background thread into a queue;
 * {@link #parseNext()} reads on the caller's thread (to model a slow client that reads only when it
 * wants).
 */
public final class SseClient implements AutoCloseable {

  /** One SSE event. */
  public record Event(String name, String data) {}

  /** The bootstrap admin key every test service knows. */
  public static final String TEST_KEY = Api.ADMIN_KEY;

  private final HttpResponse<InputStream> response;
  private final BufferedReader reader;
  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private Thread thread;

  private SseClient(HttpResponse<InputStream> response) {
    this.response = response;
    this.reader =
        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
  }

  /** Opens a stream as the admin; the answer may be an error (see {@link #status()}). */
  public static SseClient open(int port, String pattern, String filter) {
    return open(port, TEST_KEY, pattern, filter);
  }

  /** Opens a stream with {@code key} as bearer token (null: none); the answer may be an error. */
  public static SseClient open(int port, String key, String pattern, String filter) {
    StringBuilder q = new StringBuilder();
    if (pattern != null) {
      q.append("pattern=").append(URLEncoder.encode(pattern, StandardCharsets.UTF_8));
    }
    if (filter != null) {
      q.append(q.isEmpty() ? "" : "&")
          .append("filter=")
          .append(URLEncoder.encode(filter, StandardCharsets.UTF_8));
    }
    URI uri =
        URI.create(
            "http://127.0.0.1:" + port + "/api/v1/events/stream" + (q.isEmpty() ? "" : "?" + q));
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(uri).header("Accept", "text/event-stream").GET();
    if (key != null) {
      builder.header("Authorization", "Bearer " + key);
    }
    HttpRequest request = builder.build();
    try {
      return new SseClient(
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(5))
              .build()
              .send(request, HttpResponse.BodyHandlers.ofInputStream()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public int status() {
    return response.statusCode();
  }

  public String contentType() {
    return response.headers().firstValue("Content-Type").orElse("");
  }

  /** The whole body of an error answer. */
  public String body() throws IOException {
    return new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
  }

  /** Reads events on a background thread; take them with {@link #next(Duration)}. */
  public SseClient start() {
    thread =
        new Thread(
            () -> {
              try {
                Event e;
                while ((e = parseNext()) != null) {
                  events.add(e);
                }
                events.add(new Event("eof", ""));
              } catch (IOException ex) {
                events.add(new Event("eof", ex.toString()));
              }
            },
            "sse-client");
    thread.setDaemon(true);
    thread.start();
    return this;
  }

  /** The next event read by the background thread, or null after {@code timeout}. */
  public Event next(Duration timeout) throws InterruptedException {
    return events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The next event whose name is {@code name}, skipping others, or null after {@code timeout}. */
  public Event next(String name, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end) {
      Event e = next(Duration.ofNanos(Math.max(1, end - System.nanoTime())));
      if (e != null && e.name().equals(name)) {
        return e;
      }
    }
    return null;
  }

  /** Events read so far, without waiting. */
  public List<Event> drain() {
    List<Event> out = new ArrayList<>();
    events.drainTo(out);
    return out;
  }

  /**
   * Reads and parses the next event on this thread; null at the end of the stream. Comments are
   * skipped.
   */
  public Event parseNext() throws IOException {
    String name = "message";
    StringBuilder data = null;
    String line;
    while ((line = reader.readLine()) != null) {
      if (line.isEmpty()) {
        if (data != null) {
          return new Event(name, data.toString());
        }
        name = "message";
        continue;
      }
      if (line.startsWith(":")) {
        continue;
      }
      int colon = line.indexOf(':');
      String key = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1).replaceFirst("^ ", "");
      if (key.equals("event")) {
        name = value;
      } else if (key.equals("data")) {
        data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
      }
    }
    return null;
  }

  @Override
  public void close() {
    try {
      response.body().close();
    } catch (IOException e) {
      // closing a cancelled stream
    }
    if (thread != null) {
      thread.interrupt();
    }
  }
}
