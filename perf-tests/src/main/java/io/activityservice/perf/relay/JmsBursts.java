package io.activityservice.perf.relay;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * Bursts through the service over JMS for the by-hand measurements ({@code ArchiveCostMeasurement},
 * {@code ReplicaScalingMeasurement}): sends events on an inbound channel as fast as the broker
 * takes them (at most 2,000 sends in flight) and times their arrival on an output channel:
 * throughput from the first send to the last receipt, per-event latency, and the CPU time of the
 * service processes per event.
 */
public final class JmsBursts {

  /**
   * One burst's figures.
   *
   * @param eventsPerSecond events over the seconds from the first send to the last receipt
   * @param latencyMicros send-to-receipt latency of every event
   * @param cpuMicrosPerEvent CPU time of the measured processes during the burst, per event
   */
  public record Result(double eventsPerSecond, Histogram latencyMicros, double cpuMicrosPerEvent) {}

  private final JmsChannelAdapter jms;
  private final ChannelUri in;
  private final LongSupplier cpuNanos;

  /**
   * @param jms client of the broker the service uses
   * @param in the service's inbound channel
   * @param cpuNanos CPU time of the service processes so far
   */
  public JmsBursts(JmsChannelAdapter jms, ChannelUri in, LongSupplier cpuNanos) {
    this.jms = jms;
    this.in = in;
    this.cpuNanos = cpuNanos;
  }

  /**
   * Sends {@code n} events of {@code type} and waits (at most 5 minutes) until {@code out} received
   * them all.
   */
  public Result burst(String type, ChannelUri out, int n, String label) throws Exception {
    Map<String, Long> sentAt = new ConcurrentHashMap<>(n * 2);
    Histogram latency = new Histogram(TimeUnit.MINUTES.toMicros(5), 3);
    AtomicLong received = new AtomicLong();
    AtomicLong last = new AtomicLong();
    InboundChannel consumer =
        jms.openInbound(
            out,
            InboundSettings.strict(),
            (event, ack) -> {
              Long t0 = sentAt.remove(event.getId());
              long now = System.nanoTime();
              if (t0 != null) {
                synchronized (latency) {
                  latency.recordValue(
                      Math.min((now - t0) / 1000, latency.getHighestTrackableValue()));
                }
                received.incrementAndGet();
                last.set(now);
              }
              ack.ack();
            });
    try {
      long cpu0 = cpuNanos.getAsLong();
      long start = System.nanoTime();
      send(type, n, label, sentAt);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (received.get() < n && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      if (received.get() < n) {
        throw new IOException(
            label + ": " + received.get() + " of " + n + " events arrived within 5 minutes");
      }
      long cpu = cpuNanos.getAsLong() - cpu0;
      double seconds = (last.get() - start) / 1e9;
      System.out.printf(
          "%s: %d events in %.2f s (%.0f/s), p50 %.2f ms, p99 %.2f ms, CPU %.1f µs/event%n",
          label,
          n,
          seconds,
          n / seconds,
          latency.getValueAtPercentile(50) / 1000.0,
          latency.getValueAtPercentile(99) / 1000.0,
          cpu / 1000.0 / n);
      return new Result(n / seconds, latency, cpu / 1000.0 / n);
    } finally {
      consumer.close();
    }
  }

  /**
   * Sends {@code n} events of {@code type}, remembering each one's send time in {@code sentAt} (if
   * not null).
   */
  public void send(String type, int n, String label, Map<String, Long> sentAt) throws Exception {
    Semaphore window = new Semaphore(2000);
    List<CompletableFuture<Void>> sends = new ArrayList<>(n);
    try (OutboundChannel producer = jms.openOutbound(in)) {
      for (int i = 0; i < n; i++) {
        String id = label.replace(' ', '-') + "-" + i + "-" + System.nanoTime();
        CloudEvent e =
            CloudEventBuilder.v1()
                .withId(id)
                .withSource(URI.create("/perf/" + label.replace(' ', '-')))
                .withType(type)
                .withTime(OffsetDateTime.now())
                .withDataContentType("application/json")
                .withData(
                    ("{\"meter\":\"m" + (i % 100) + "\",\"value\":" + i + "}")
                        .getBytes(StandardCharsets.UTF_8))
                .build();
        window.acquire();
        if (sentAt != null) {
          sentAt.put(id, System.nanoTime());
        }
        sends.add(producer.send(e).whenComplete((v, error) -> window.release()));
      }
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
    }
  }

  /** The median of {@code values}. */
  public static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** The latencies of several bursts together. */
  public static Histogram merged(List<Result> results) {
    Histogram h = new Histogram(TimeUnit.MINUTES.toMicros(5), 3);
    results.forEach(r -> h.add(r.latencyMicros()));
    return h;
  }

  /** A markdown table row: name, events/s, p50 ms, p99 ms, CPU µs/event. */
  public static String row(String name, double rate, Histogram latency, double cpu) {
    return String.format(
        "| %s | %.0f | %.2f | %.2f | %.1f |%n",
        name,
        rate,
        latency.getValueAtPercentile(50) / 1000.0,
        latency.getValueAtPercentile(99) / 1000.0,
        cpu);
  }
}
