package io.activityservice.perf;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.jackson.JsonFormat;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of matching one ~1 KiB CloudEvent against N subscriptions with distinct patterns ({@link
 * SubscriptionIndex#match}). 90 % of the subscriptions select one {@code data.meter}, 10 % a
 * numeric range of {@code data.value} for the reading type; the event matches two of them.
 *
 * <p>{@code match} measures the index alone (the JSON view is built once per event by ingest);
 * {@code buildViewAndMatch} adds building that view, i.e. the router's per-event work before
 * sending.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx4g"})
public class RouterMatchBenchmark {

  @Param({"1", "100", "10000", "100000"})
  public int subscriptions;

  private SubscriptionIndex index;
  private RoutableEvent event;
  private int expectedMatches;

  @Setup(Level.Trial)
  public void setUp() {
    index = new SubscriptionIndex();
    ChannelUri target = ChannelUri.parse("fake:sink");
    int ranges = Math.max(subscriptions / 10, subscriptions == 1 ? 0 : 1);
    int meters = subscriptions - ranges;
    OffsetDateTime now = OffsetDateTime.now();
    for (int i = 0; i < meters; i++) {
      add("meter-" + i, "{\"data\": {\"meter\": [\"m-" + i + "\"]}}", target, now);
    }
    for (int k = 0; k < ranges; k++) {
      add(
          "range-" + k,
          "{\"type\": [\""
              + BenchmarkEvents.READING
              + "\"], \"data\": {\"value\": "
              + "[{\"numeric\": [\">=\", "
              + (k * 10)
              + ", \"<\", "
              + (k * 10 + 10)
              + "]}]}}",
          target,
          now);
    }
    // Matches meter-0 and, when there are ranges, range-0: the result list has the same size for
    // every N
    // except N = 1, so the figures compare the index's cost, not the size of the answer.
    event = RoutableEvent.of(BenchmarkEvents.reading("m-0", 7.5));
    expectedMatches = index.match(event.event(), event.json()).size();
    if (expectedMatches != (ranges > 0 ? 2 : 1)) {
      throw new IllegalStateException("benchmark set-up is wrong: " + expectedMatches + " matches");
    }
    EventFormat format = new JsonFormat();
    int bytes = format.serialize(event.event()).length;
    if (bytes < 950 || bytes > 1150) {
      throw new IllegalStateException("event should be ~1 KiB, is " + bytes + " bytes");
    }
  }

  private void add(String id, String pattern, ChannelUri target, OffsetDateTime now) {
    Subscription s =
        new Subscription(
            id,
            id,
            Json.parse(pattern, "pattern"),
            null,
            target.toString(),
            RetryPolicy.DEFAULT,
            null,
            now);
    index.add(new SubscriptionIndex.Entry(s, null, target, null));
  }

  @Benchmark
  public List<SubscriptionIndex.Entry> match() {
    return index.match(event.event(), event.json());
  }

  @Benchmark
  public List<SubscriptionIndex.Entry> buildViewAndMatch() {
    RoutableEvent e = RoutableEvent.of(event.event());
    return index.match(e.event(), e.json());
  }
}
