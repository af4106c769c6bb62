package io.activityservice.channel.sqs;

import io.activityservice.channel.AbstractChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.WirePreview;
import io.activityservice.channel.support.DaemonThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * Amazon SQS channels: {@code sqs:<queue name>} or {@code sqs:<queue URL>}, on the AWS SDK v2 async
 * client. The pipeline is batch-aligned: inbound channels receive 10 messages per long poll and
 * route them as a unit, the sends they cause leave in one SendMessageBatch per target queue, acked
 * messages are deleted with DeleteMessageBatch and messages still being routed get their visibility
 * extended in batches. Bodies are structured-mode CloudEvent JSON.
 */
public final class SqsChannelAdapter extends AbstractChannelAdapter {

  private static final Logger log = LoggerFactory.getLogger(SqsChannelAdapter.class);
  private static final long CLOSE_TIMEOUT_SECONDS = 10;

  /**
   * Received batches waiting for a worker thread: far fewer in practice (one per receive in
   * flight).
   */
  private static final int WORKER_QUEUE = 10_000;

  private final SqsAsyncClient client;
  private final boolean ownsClient;
  private final SqsChannelProperties properties;
  private final QueueResolver resolver;
  private final ScheduledThreadPoolExecutor scheduler;
  private final ThreadPoolExecutor worker;
  private final Batcher.Limits sendLimits;

  /**
   * An adapter on a client the caller owns (it is not closed by {@link #close()}).
   *
   * @param client the SQS client, e.g. from {@link SqsClients#builder(SqsChannelProperties)}
   * @param properties batching, polling and queue-creation settings (endpoint and credentials are
   *     the client's business)
   */
  public SqsChannelAdapter(SqsAsyncClient client, SqsChannelProperties properties) {
    this(client, properties, false);
  }

  private SqsChannelAdapter(
      SqsAsyncClient client, SqsChannelProperties properties, boolean ownsClient) {
    super("sqs");
    this.client = Objects.requireNonNull(client, "client");
    this.properties = Objects.requireNonNull(properties, "properties");
    this.ownsClient = ownsClient;
    this.resolver = new QueueResolver(client, properties.createQueues());
    this.scheduler = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("sqs-channel"));
    this.scheduler.setRemoveOnCancelPolicy(true);
    // Received batches are routed here, not on the SDK's I/O threads. The queue is bounded by the
    // receives in
    // flight (at most max-in-flight / 10 per channel); beyond it, or once the adapter is closed, a
    // task runs
    // on the thread that hands it over, so no received batch is ever dropped.
    this.worker =
        new ThreadPoolExecutor(
            properties.workerThreads(),
            properties.workerThreads(),
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(WORKER_QUEUE),
            DaemonThreads.factory("sqs-channel-worker"),
            (task, executor) -> task.run());
    this.worker.allowCoreThreadTimeOut(true);
    this.sendLimits =
        new Batcher.Limits(
            properties.maxBatchBytes(),
            properties.maxBatchRequestsInFlight(),
            properties.sendBufferSize(),
            4,
            Batcher.RETRY_BACKOFF);
  }

  /** An adapter with its own client built from {@code properties} (closed with the adapter). */
  public static SqsChannelAdapter connect(SqsChannelProperties properties) {
    return new SqsChannelAdapter(SqsClients.builder(properties).build(), properties, true);
  }

  /** The SQS client the adapter uses. */
  public SqsAsyncClient client() {
    return client;
  }

  /** The settings the adapter runs with. */
  public SqsChannelProperties properties() {
    return properties;
  }

  /**
   * The URL of a queue ({@code sqs:} address: name or URL), created first if missing and {@code
   * createQueues} is on.
   */
  public CompletableFuture<String> queueUrl(ChannelUri uri) {
    try {
      return resolver.url(SqsQueues.queueOf(uri));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * {@inheritDoc} Here: structured JSON (the default) or the data alone as the body; SQS has no
   * CloudEvents binary binding.
   */
  @Override
  public Set<DeliveryFormat> formats() {
    return Set.of(DeliveryFormat.STRUCTURED, DeliveryFormat.DATA);
  }

  /** {@inheritDoc} Here: the message body (SQS messages are sent without attributes). */
  @Override
  public WirePreview preview(ChannelUri uri, OutboundEvent event) {
    byte[] body =
        event.format() == DeliveryFormat.DATA
            ? event.encoded(DeliveryFormat.DATA_BYTES)
            : event.encoded(io.activityservice.channel.CloudEventJson.STRUCTURED);
    return new WirePreview(Map.of(), body);
  }

  @Override
  public Set<String> schemes() {
    return Set.of("sqs");
  }

  @Override
  public void validate(ChannelUri uri) {
    SqsQueues.queueOf(uri);
  }

  @Override
  public OutboundChannel openOutbound(ChannelUri uri) {
    String queue = SqsQueues.queueOf(uri);
    SqsOutboundChannel channel =
        register(
            onClose ->
                new SqsOutboundChannel(
                    uri,
                    queue,
                    client,
                    resolver,
                    sendLimits,
                    properties.newBatchPolicy(sendLimits.maxRequestsInFlight()),
                    scheduler,
                    onClose));
    resolver.url(queue); // resolve (and create) early; failures are retried by the sends
    return channel;
  }

  @Override
  public InboundChannel openInbound(
      ChannelUri uri, InboundSettings settings, InboundHandler handler) {
    String queue = SqsQueues.queueOf(uri);
    Objects.requireNonNull(handler, "handler");
    InboundSettings effective = settings == null ? InboundSettings.strict() : settings;
    return register(
            onClose ->
                new SqsInboundChannel(
                    uri,
                    queue,
                    client,
                    resolver,
                    new InboundMessages(uri, effective),
                    handler,
                    properties,
                    scheduler,
                    worker,
                    onClose))
        .start();
  }

  /**
   * Stops every receiver, then flushes buffered sends, deletes and visibility changes of all
   * channels in parallel, waiting at most {@value #CLOSE_TIMEOUT_SECONDS} s in all.
   */
  @Override
  protected void closeChannels(List<AutoCloseable> open) {
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    List<SqsInboundChannel> receivers = new ArrayList<>();
    for (AutoCloseable channel : open) {
      if (channel instanceof SqsInboundChannel in) {
        in.close();
        receivers.add(in);
      }
    }
    for (AutoCloseable channel : open) {
      if (channel instanceof SqsOutboundChannel out) {
        pending.add(out.closeAsync());
      }
    }
    receivers.forEach(c -> pending.add(c.shutdown()));
    try {
      CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
          .get(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.warn("sqs channels did not settle within {}s: {}", CLOSE_TIMEOUT_SECONDS, e.toString());
    }
  }

  /** Stops the adapter's threads and releases the client if the adapter built it. */
  @Override
  protected void doClose() {
    scheduler.shutdownNow();
    worker.shutdown();
    if (ownsClient) {
      try {
        client.close();
      } catch (RuntimeException e) {
        log.warn("closing the SQS client failed: {}", e.toString());
      }
    }
  }
}
