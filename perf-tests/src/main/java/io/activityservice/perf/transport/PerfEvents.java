package io.activityservice.perf.transport;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The events the suite sends: structured JSON data of about 1 KiB, a scenario-specific type, and
 * the extension {@value #SENT_EXTENSION} carrying the intended send time as epoch nanoseconds
 * (text), so a receiver in another process could compute latencies too. The suite itself keys
 * intended send times by event id (sender and receiver share a JVM and its monotonic clock).
 */
public final class PerfEvents {

  /** Extension holding the intended send time in epoch nanoseconds. */
  public static final String SENT_EXTENSION = "perfsent";

  /** The CloudEvents source of every event. */
  public static final URI SOURCE = URI.create("/perf-tests");

  private final byte[] data;

  /** Events whose data is a JSON object of {@code dataBytes} bytes (at least 32). */
  public PerfEvents(int dataBytes) {
    String prefix = "{\"value\":1,\"payload\":\"";
    String suffix = "\"}";
    int fill = Math.max(1, dataBytes - prefix.length() - suffix.length());
    this.data = (prefix + "x".repeat(fill) + suffix).getBytes(StandardCharsets.UTF_8);
  }

  /** Size of every event's data in bytes. */
  public int dataBytes() {
    return data.length;
  }

  /** The data as bytes (shared, do not modify). */
  public byte[] data() {
    return data;
  }

  /**
   * An event with this id and type, stamped with the wall-clock equivalent of {@code
   * intendedNanos}.
   */
  public CloudEvent event(String id, String type, long intendedNanos, Clock clock) {
    return CloudEventBuilder.v1()
        .withId(id)
        .withSource(SOURCE)
        .withType(type)
        .withDataContentType("application/json")
        .withExtension(SENT_EXTENSION, Long.toString(clock.epochNanos(intendedNanos)))
        .withData(data)
        .build();
  }

  /** Maps {@link System#nanoTime()} readings to epoch nanoseconds, anchored once. */
  public static final class Clock {
    private final long anchorNano = System.nanoTime();
    private final long anchorEpochNanos;

    /** Anchors now. */
    public Clock() {
      Instant now = Instant.now();
      anchorEpochNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** Epoch nanoseconds corresponding to a {@code System.nanoTime()} reading. */
    public long epochNanos(long nanoTime) {
      return anchorEpochNanos + (nanoTime - anchorNano);
    }
  }
}
