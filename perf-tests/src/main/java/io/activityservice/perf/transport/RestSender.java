package io.activityservice.perf.transport;

import io.activityservice.channel.CloudEventJson;
import io.activityservice.perf.service.ServiceApi;
import io.cloudevents.CloudEvent;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Producer driver for REST: {@code POST /api/v1/events} with one structured-mode CloudEvent per
 * request, at most {@code concurrency} requests in flight ({@link #send} blocks for a slot, at most
 * 60 s). A {@code 503} (routing at capacity) is retried after 20 ms, up to 50 times.
 */
public final class RestSender implements EventSender {

  private static final int MAX_ATTEMPTS = 50;

  private final ServiceApi api;
  private final Semaphore slots;

  /** Posts to the service's {@code /api/v1/events}. */
  public RestSender(ServiceApi api, int concurrency) {
    this.api = api;
    this.slots = new Semaphore(concurrency);
  }

  @Override
  public CompletableFuture<Void> send(CloudEvent event) {
    try {
      if (!slots.tryAcquire(60, TimeUnit.SECONDS)) {
        return CompletableFuture.failedFuture(
            new IllegalStateException("no REST slot within 60 s"));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    }
    byte[] body = CloudEventJson.encode(event);
    CompletableFuture<Void> done = new CompletableFuture<>();
    attempt(body, 1, done);
    return done.whenComplete((v, e) -> slots.release());
  }

  private void attempt(byte[] body, int n, CompletableFuture<Void> done) {
    HttpRequest request =
        api.request("/api/v1/events")
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", CloudEventJson.CONTENT_TYPE)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    api.http()
        .sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .whenComplete(
            (response, error) -> {
              if (error != null) {
                done.completeExceptionally(error);
              } else if (response.statusCode() == 202 || response.statusCode() == 200) {
                done.complete(null);
              } else if (response.statusCode() == 503 && n < MAX_ATTEMPTS) {
                CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)
                    .execute(() -> attempt(body, n + 1, done));
              } else {
                done.completeExceptionally(
                    new IllegalStateException(
                        "POST /api/v1/events answered " + response.statusCode()));
              }
            });
  }

  @Override
  public void close() {
    // the HttpClient is shared and owned by the caller
  }
}
