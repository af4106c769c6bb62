package io.activityservice.perf;

import io.activityservice.channel.CloudEventJson;
import io.activityservice.events.webhook.StandardWebhooks;
import io.cloudevents.CloudEvent;
import java.util.ArrayList;
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
 * What Standard Webhooks signing adds per delivered event: {@code sign} is one {@code
 * webhook-signature} over the ~1 KiB structured encoding the webhook channel sends (already
 * encoded, as in the service: the encoding is shared), with one secret or two (a rotation's
 * overlap); {@code encode} is that encoding itself, for the ratio.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class WebhookSigningBenchmark {

  @Param({"1", "2"})
  public int secrets;

  private CloudEvent event;
  private byte[] body;
  private List<byte[]> keys;
  private long timestamp;

  @Setup(Level.Trial)
  public void setUp() {
    event = BenchmarkEvents.reading("m-0", 7.5);
    body = CloudEventJson.encode(event);
    keys = new ArrayList<>();
    for (int i = 0; i < secrets; i++) {
      keys.add(StandardWebhooks.key(StandardWebhooks.newSecret()));
    }
    timestamp = System.currentTimeMillis() / 1000;
  }

  @Benchmark
  public String sign() {
    return StandardWebhooks.signature(event.getId(), timestamp, body, keys);
  }

  @Benchmark
  public byte[] encode() {
    return CloudEventJson.encode(event);
  }
}
