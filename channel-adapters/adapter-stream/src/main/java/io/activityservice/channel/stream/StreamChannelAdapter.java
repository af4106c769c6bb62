package io.activityservice.channel.stream;

import io.activityservice.channel.AbstractChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.WirePreview;
import io.activityservice.channel.batching.AdaptiveBatchPolicy;
import io.activityservice.channel.batching.FixedBatchPolicy;
import io.activityservice.channel.support.DaemonThreads;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.springframework.cloud.stream.binder.Binder;
import org.springframework.cloud.stream.binder.BinderFactory;
import org.springframework.cloud.stream.binder.ExtendedConsumerProperties;
import org.springframework.cloud.stream.binder.ExtendedProducerProperties;
import org.springframework.cloud.stream.binder.ExtendedPropertiesBinder;
import org.springframework.cloud.stream.binder.kafka.KafkaMessageChannelBinder;
import org.springframework.cloud.stream.binder.kafka.properties.KafkaConsumerProperties;
import org.springframework.cloud.stream.binder.kafka.properties.KafkaProducerProperties;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.messaging.MessageChannel;

/**
 * {@code kafka:<topic>} channels bound at runtime through Spring Cloud Stream: the adapter obtains
 * a binder from the {@link BinderFactory} (the Kafka binder, or the one named by {@link
 * KafkaChannelProperties#binder()}) and binds one producer per outbound channel and one consumer
 * (in a consumer group) per inbound channel. Brokers, security and client settings come from {@code
 * spring.cloud.stream.kafka.binder.*}; the per-binding defaults {@code
 * spring.cloud.stream.kafka.default.producer/consumer.*} apply too.
 *
 * <p>Events travel in the CloudEvents Kafka binding, see {@link KafkaCloudEventCodec}.
 */
public final class StreamChannelAdapter extends AbstractChannelAdapter {

  /** The scheme served. */
  public static final String SCHEME = "kafka";

  /** Inbound setting that overrides {@link KafkaChannelProperties#group()} for one channel. */
  public static final String GROUP_SETTING = "group";

  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  /** Spring Cloud Stream's default {@code buffer-size} (the producer's {@code batch.size}). */
  private static final int SCST_DEFAULT_BUFFER_SIZE = 16_384;

  /** The {@code batch.size} the adapter uses instead of that default. */
  static final int DEFAULT_BATCH_SIZE = 65_536;

  /**
   * Requests in flight per connection of the producer ({@code
   * max.in.flight.requests.per.connection}).
   */
  private static final int PRODUCER_SLOTS = 5;

  /** Most records the adaptive hand-off groups at once. */
  private static final int MAX_HANDOFF = 500;

  private final BinderFactory binderFactory;
  private final KafkaChannelProperties properties;
  private final SendLane[] lanes;
  private final AtomicInteger nextLane = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final ProducerCapture capture = new ProducerCapture();
  private final ScheduledExecutorService scheduler;
  private final AtomicInteger bindings = new AtomicInteger();
  private volatile ExtendedPropertiesBinder<
          MessageChannel, KafkaConsumerProperties, KafkaProducerProperties>
      binder;

  /**
   * @param binderFactory Spring Cloud Stream's binder factory (a bean of every SCSt application)
   * @param properties channel settings
   */
  public StreamChannelAdapter(BinderFactory binderFactory, KafkaChannelProperties properties) {
    super(SCHEME);
    this.binderFactory = binderFactory;
    this.properties = properties;
    this.lanes = new SendLane[properties.sendThreads()];
    for (int i = 0; i < lanes.length; i++) {
      lanes[i] =
          new SendLane(
              "kafka-channel-send-" + (i + 1),
              properties.adaptiveHandoff()
                  ? new AdaptiveBatchPolicy(MAX_HANDOFF, properties.handoffLinger(), PRODUCER_SLOTS)
                  : new FixedBatchPolicy(1, Duration.ZERO));
    }
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("kafka-channel-timer"));
  }

  /** {@inheritDoc} Here: binary mode (the default), structured mode, or the value alone. */
  @Override
  public Set<DeliveryFormat> formats() {
    return Set.of(DeliveryFormat.STRUCTURED, DeliveryFormat.BINARY, DeliveryFormat.DATA);
  }

  /** {@inheritDoc} Here: the record's headers and value. */
  @Override
  public WirePreview preview(ChannelUri uri, OutboundEvent event) {
    KafkaCloudEventCodec.Encoded encoded =
        event.encoded(KafkaCloudEventCodec.wireFormat(event.format()));
    Map<String, String> headers = new java.util.LinkedHashMap<>();
    encoded
        .headers()
        .forEach((k, v) -> headers.put(k, new String(v, java.nio.charset.StandardCharsets.UTF_8)));
    return new WirePreview(headers, encoded.value());
  }

  @Override
  public Set<String> schemes() {
    return Set.of(SCHEME);
  }

  @Override
  public void validate(ChannelUri uri) {
    String topic = uri.address();
    if (!SCHEME.equals(uri.scheme())
        || !TOPIC.matcher(topic).matches()
        || topic.equals(".")
        || topic.equals("..")) {
      throw new IllegalArgumentException(
          "'"
              + uri
              + "' is not a valid kafka channel; expected"
              + " kafka:<topic> where the topic has 1-249 letters, digits, '.', '_' or '-', e.g. kafka:orders");
    }
  }

  @Override
  public OutboundChannel openOutbound(ChannelUri uri) {
    validate(uri);
    String topic = uri.address();
    // One lane per channel (lanes are shared round-robin): a channel's records reach the producer
    // in send order.
    SendLane lane = lanes[Math.floorMod(nextLane.getAndIncrement(), lanes.length)];
    return register(
        onClose ->
            new StreamOutboundChannel(
                uri,
                lane,
                channel -> binder().bindProducer(topic, channel, producerProperties(topic)),
                capture,
                inFlight,
                properties.maxInFlight(),
                properties.sendTimeout(),
                onClose));
  }

  @Override
  public InboundChannel openInbound(
      ChannelUri uri, InboundSettings settings, InboundHandler handler) {
    validate(uri);
    String topic = uri.address();
    String group = settings.property(GROUP_SETTING, properties.group());
    StreamInboundChannel inbound =
        register(
            onClose ->
                new StreamInboundChannel(
                    uri,
                    settings,
                    handler,
                    scheduler,
                    properties.redelivery().backoff(),
                    properties.maxUnacknowledged(),
                    properties.commitInterval(),
                    onClose));
    try {
      return inbound.open(
          channel -> binder().bindConsumer(topic, group, channel, consumerProperties(topic)));
    } catch (RuntimeException e) {
      inbound.close();
      throw e;
    }
  }

  private ExtendedProducerProperties<KafkaProducerProperties> producerProperties(String topic) {
    // A unique binding name per channel keeps the binder's per-binding infrastructure apart.
    String name = "activity-kafka-out-" + topic + "-" + bindings.incrementAndGet();
    KafkaProducerProperties kafka = binder().getExtendedProducerProperties(name);
    // The channel sends through the binding's producer with a callback per record (asynchronous):
    // the binder's
    // own handler is bound but idle, so its sync setting does not matter; keep it asynchronous.
    kafka.setSync(false);
    if (kafka.getBufferSize() == SCST_DEFAULT_BUFFER_SIZE) {
      kafka.setBufferSize(
          DEFAULT_BATCH_SIZE); // batch.size: room for ~50 events of 1 KiB per partition request
    }
    long timeout = properties.sendTimeout().toMillis();
    Map<String, String> config = kafka.getConfiguration();
    // KafkaProducer.send() may block for metadata/buffer space (on the send lane): bound it by the
    // send timeout,
    // and give up on a record (callback with an error) after it too.
    config.putIfAbsent("max.block.ms", String.valueOf(timeout));
    config.putIfAbsent("delivery.timeout.ms", String.valueOf(timeout));
    config.putIfAbsent("request.timeout.ms", String.valueOf(Math.max(500, timeout / 2)));
    ExtendedProducerProperties<KafkaProducerProperties> producer =
        new ExtendedProducerProperties<>(kafka);
    producer.populateBindingName(name);
    producer.setUseNativeEncoding(true); // payload and headers are already the wire format
    producer.setErrorChannelEnabled(false); // failures surface on the record's callback
    return producer;
  }

  private ExtendedConsumerProperties<KafkaConsumerProperties> consumerProperties(String topic) {
    String name = "activity-kafka-in-" + topic + "-" + bindings.incrementAndGet();
    KafkaConsumerProperties kafka = binder().getExtendedConsumerProperties(name);
    kafka.setAckMode(ContainerProperties.AckMode.MANUAL); // commits only what the handler settled
    kafka.setEnableDlq(false);
    if (kafka.getStartOffset() == null) {
      kafka.setStartOffset(KafkaConsumerProperties.StartOffset.earliest); // new group: miss nothing
    }
    ExtendedConsumerProperties<KafkaConsumerProperties> consumer =
        new ExtendedConsumerProperties<>(kafka);
    consumer.populateBindingName(name);
    consumer.setUseNativeDecoding(true);
    consumer.setMaxAttempts(1); // redelivery is the adapter's (nack), not the binder's retry
    consumer.setConcurrency(1);
    return consumer;
  }

  @SuppressWarnings("unchecked")
  private ExtendedPropertiesBinder<MessageChannel, KafkaConsumerProperties, KafkaProducerProperties>
      binder() {
    var current = binder;
    if (current != null) {
      return current;
    }
    synchronized (this) {
      if (binder == null) {
        Binder<MessageChannel, ?, ?> found =
            binderFactory.getBinder(properties.binder(), MessageChannel.class);
        if (!(found instanceof ExtendedPropertiesBinder<?, ?, ?> extended)
            || !(extended.getExtendedProducerProperties("activity-kafka-probe")
                instanceof KafkaProducerProperties)) {
          throw new IllegalStateException(
              "Spring Cloud Stream binder '"
                  + properties.binder()
                  + "' is not a Kafka binder; set activity.channels.kafka.binder to a binder of type kafka");
        }
        if (!(found instanceof KafkaMessageChannelBinder kafkaBinder)) {
          throw new IllegalStateException(
              "Spring Cloud Stream binder '"
                  + properties.binder()
                  + "' is not the Kafka binder (KafkaMessageChannelBinder); kafka: channels send through its producers");
        }
        kafkaBinder.addClientFactoryCustomizer(capture);
        binder =
            (ExtendedPropertiesBinder<
                    MessageChannel, KafkaConsumerProperties, KafkaProducerProperties>)
                found;
      }
      return binder;
    }
  }

  /** Stops the adapter's threads once its channels are closed. */
  @Override
  protected void doClose() {
    for (SendLane lane : lanes) {
      lane.close(properties.sendTimeout().toMillis());
    }
    scheduler.shutdownNow();
  }
}
