package io.activityservice.perf.transport;

import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.perf.service.ServiceApi;
import io.cloudevents.CloudEvent;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Producer driver for REST batch publish: {@code POST /api/v1/events} with {@code
 * application/cloudevents-batch+json}, {@code batchSize} events per request (a partial batch leaves
 * after {@value #LINGER_MS} ms), at most {@code concurrency} requests in flight. Each event's
 * future completes with its request. A {@code 503} is retried after 20 ms, up to 50 times (events
 * of the batch already routed are duplicates the service's dedup drops).
 */
public final class RestBatchSender implements EventSender {

  private static final int MAX_ATTEMPTS = 50;
  private static final long LINGER_MS = 5;

  private final ServiceApi api;
  private final int batchSize;
  private final Semaphore slots;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("perf-rest-batch-linger"));
  private List<CloudEvent> events = new ArrayList<>();
  private List<CompletableFuture<Void>> futures = new ArrayList<>();
  private boolean lingering;

  /** Posts batches of {@code batchSize} to the service's {@code /api/v1/events}. */
  public RestBatchSender(ServiceApi api, int batchSize, int concurrency) {
    this.api = api;
    this.batchSize = batchSize;
    this.slots = new Semaphore(concurrency);
  }

  @Override
  public CompletableFuture<Void> send(CloudEvent event) {
    CompletableFuture<Void> f = new CompletableFuture<>();
    List<CloudEvent> full = null;
    List<CompletableFuture<Void>> fullFutures = null;
    synchronized (this) {
      events.add(event);
      futures.add(f);
      if (events.size() >= batchSize) {
        full = events;
        fullFutures = futures;
        events = new ArrayList<>();
        futures = new ArrayList<>();
      } else if (!lingering) {
        lingering = true;
        timer.schedule(this::flush, LINGER_MS, TimeUnit.MILLISECONDS);
      }
    }
    if (full != null) {
      post(full, fullFutures);
    }
    return f;
  }

  private void flush() {
    List<CloudEvent> batch;
    List<CompletableFuture<Void>> fs;
    synchronized (this) {
      lingering = false;
      if (events.isEmpty()) {
        return;
      }
      batch = events;
      fs = futures;
      events = new ArrayList<>();
      futures = new ArrayList<>();
    }
    post(batch, fs);
  }

  private void post(List<CloudEvent> batch, List<CompletableFuture<Void>> fs) {
    try {
      if (!slots.tryAcquire(60, TimeUnit.SECONDS)) {
        fs.forEach(
            f -> f.completeExceptionally(new IllegalStateException("no REST slot within 60 s")));
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fs.forEach(f -> f.completeExceptionally(e));
      return;
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream(batch.size() * 1400);
    body.write('[');
    for (int i = 0; i < batch.size(); i++) {
      if (i > 0) {
        body.write(',');
      }
      body.writeBytes(CloudEventJson.encode(batch.get(i)));
    }
    body.write(']');
    CompletableFuture<Void> done = new CompletableFuture<>();
    attempt(body.toByteArray(), 1, done);
    done.whenComplete(
        (v, e) -> {
          slots.release();
          for (CompletableFuture<Void> f : fs) {
            if (e == null) {
              f.complete(null);
            } else {
              f.completeExceptionally(e);
            }
          }
        });
  }

  private void attempt(byte[] body, int n, CompletableFuture<Void> done) {
    HttpRequest request =
        api.request("/api/v1/events")
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", CloudEventJson.BATCH_CONTENT_TYPE)
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
                        "POST /api/v1/events (batch) answered " + response.statusCode()));
              }
            });
  }

  @Override
  public void close() {
    flush();
    timer.shutdown();
  }
}
