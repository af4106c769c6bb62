package io.activityservice.channel.sqs;

import io.activityservice.channel.Redaction;
import io.activityservice.channel.RedeliverySettings;
import io.activityservice.channel.batching.AdaptiveBatchPolicy;
import io.activityservice.channel.batching.BatchPolicy;
import io.activityservice.channel.batching.FixedBatchPolicy;
import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * SQS channel settings ({@code activity.channels.sqs.*}). Every field has a default; the values are
 * checked when the application starts and a bad value fails start-up with a message saying how to
 * fix it.
 *
 * @param enabled register the {@code sqs:} adapter at all
 * @param endpoint SQS endpoint override, e.g. {@code http://127.0.0.1:4566} for LocalStack. Empty
 *     (default): the embedded ElasticMQ if {@code embedded.enabled}, otherwise real AWS (endpoint
 *     from the region)
 * @param region AWS region, e.g. {@code eu-west-1}. Empty: {@code us-east-1} with an endpoint
 *     override, else the SDK's default region chain ({@code AWS_REGION}, profile, instance
 *     metadata)
 * @param accessKey static access key id; empty (default) uses the SDK's default credentials chain
 *     for AWS, or dummy credentials with an endpoint override or the embedded server
 * @param secretKey static secret key, required together with {@code accessKey}
 * @param createQueues create queues that do not exist when a channel is opened. Default: true with
 *     an endpoint override or the embedded server, false on AWS
 * @param pollers most concurrent long-polling ReceiveMessage requests per inbound channel (1 to
 *     50): one while the queue keeps up, one more for each answer that comes back full (a backlog),
 *     as far as {@code max-in-flight} allows (every receive asks for 10 messages and reserves 10
 *     slots)
 * @param waitTime long-polling wait of a receive request, 0s to 20s
 * @param visibilityTimeout visibility timeout requested for received messages; messages still being
 *     routed after half of it get their visibility extended (1s to 12h)
 * @param maxInFlight received but not yet settled (acked or nacked) messages per inbound channel; a
 *     message's slot is free when it is settled, not when its delete is done; polling pauses at the
 *     bound
 * @param batchLinger longest wait of a send for more events to fill its batch (at most 1s): with
 *     {@code batching=fixed} every batch waits up to it unless full; with {@code batching=adaptive}
 *     it is the upper bound of the linger the controller chooses
 * @param maxBatchRequestsInFlight concurrent SendMessageBatch requests per outbound channel
 * @param maxBatchBytes byte limit of one batch request and of one message; 1 MiB on AWS (the SQS
 *     quota). LocalStack 4.3 still enforces 262144
 * @param sendBufferSize events buffered per outbound channel waiting for a batch slot; a send
 *     beyond it fails at once
 * @param embedded the embedded ElasticMQ server used when no endpoint is configured
 * @param redelivery backoff of a nacked message: its visibility timeout is set to the delay of its
 *     receive count (default 1s doubling up to 60s, full jitter, rounded up to whole seconds; see
 *     {@link RedeliverySettings})
 * @param batching how send, delete and visibility batches form: {@code adaptive} ({@link
 *     AdaptiveBatchPolicy}: at once at low load, full batches under overload) or {@code fixed}
 *     ({@code batch-size} entries or {@code batch-linger}, whichever comes first)
 * @param batchSize most entries per batch request, 1 to 10 (the SQS limit)
 * @param workerThreads adapter threads that route received batches, so that no handler runs on the
 *     SDK's I/O threads
 * @param deleteLinger longest wait of an acked message's delete for others to fill its
 *     DeleteMessageBatch (at most 1s and less than half the visibility timeout): deletes cost
 *     requests, not latency, so at moderate rates ten of them share one request; 0 deletes each
 *     settled group at once. FIFO queues always delete at once (SQS holds a message group back
 *     until its in-flight message is deleted)
 * @param receiveLinger pause before the next receive after a partial answer while no other receive
 *     is out, so that more messages gather for it: fewer requests at moderate rates, up to that
 *     much more latency (at most 1s; e.g. with 20ms a receive at 200 ev/s takes about 5 messages
 *     instead of 1-2)
 * @param ioThreads Netty event loop threads of the SQS client: every request and answer is handled
 *     on one loop without thread hops; raise it only if that thread saturates (many channels at
 *     high rates)
 * @param checksumValidation let the SDK check the MD5 digests SQS returns for sent and received
 *     message bodies (off by default: HTTPS already protects every byte on the wire, and SigV4
 *     signs each request; see the module README)
 */
@ConfigurationProperties("activity.channels.sqs")
public record SqsChannelProperties(
    @DefaultValue("true") Boolean enabled,
    @DefaultValue("") String endpoint,
    String region,
    String accessKey,
    String secretKey,
    Boolean createQueues,
    @DefaultValue("4") Integer pollers,
    @DefaultValue("20s") Duration waitTime,
    @DefaultValue("30s") Duration visibilityTimeout,
    @DefaultValue("100") Integer maxInFlight,
    @DefaultValue("5ms") Duration batchLinger,
    @DefaultValue("8") Integer maxBatchRequestsInFlight,
    @DefaultValue("1048576") Integer maxBatchBytes,
    @DefaultValue("10000") Integer sendBufferSize,
    @DefaultValue Embedded embedded,
    @NestedConfigurationProperty RedeliverySettings redelivery,
    @DefaultValue("adaptive") String batching,
    @DefaultValue("10") Integer batchSize,
    @DefaultValue("2") Integer workerThreads,
    @DefaultValue("100ms") Duration deleteLinger,
    @DefaultValue("false") Boolean checksumValidation,
    @DefaultValue("0ms") Duration receiveLinger,
    @DefaultValue("1") Integer ioThreads) {

  /** {@code batching=adaptive}: the {@link AdaptiveBatchPolicy}. */
  public static final String ADAPTIVE = "adaptive";

  /**
   * {@code batching=fixed}: a {@link FixedBatchPolicy} of {@code batch-size} and {@code
   * batch-linger}.
   */
  public static final String FIXED = "fixed";

  /** The SQS quota for one message and for one batch request (1 MiB). */
  public static final int SQS_MAX_BATCH_BYTES = 1_048_576;

  private static final String P = "activity.channels.sqs.";

  @ConstructorBinding
  public SqsChannelProperties {
    enabled = enabled == null || enabled;
    endpoint = endpoint == null ? "" : endpoint.trim();
    region = region == null || region.isBlank() ? null : region.trim();
    accessKey = accessKey == null || accessKey.isBlank() ? null : accessKey.trim();
    secretKey = secretKey == null || secretKey.isBlank() ? null : secretKey.trim();
    embedded = embedded == null ? new Embedded(null) : embedded;
    createQueues = createQueues != null ? createQueues : !endpoint.isEmpty() || embedded.enabled();
    pollers = pollers == null ? 4 : pollers;
    waitTime = waitTime == null ? Duration.ofSeconds(20) : waitTime;
    visibilityTimeout = visibilityTimeout == null ? Duration.ofSeconds(30) : visibilityTimeout;
    maxInFlight = maxInFlight == null ? 100 : maxInFlight;
    batchLinger = batchLinger == null ? Duration.ofMillis(5) : batchLinger;
    maxBatchRequestsInFlight = maxBatchRequestsInFlight == null ? 8 : maxBatchRequestsInFlight;
    maxBatchBytes = maxBatchBytes == null ? SQS_MAX_BATCH_BYTES : maxBatchBytes;
    sendBufferSize = sendBufferSize == null ? 10_000 : sendBufferSize;
    redelivery = redelivery == null ? RedeliverySettings.defaults() : redelivery;
    batching =
        batching == null || batching.isBlank()
            ? ADAPTIVE
            : batching.trim().toLowerCase(java.util.Locale.ROOT);
    batchSize = batchSize == null ? 10 : batchSize;
    workerThreads = workerThreads == null ? 2 : workerThreads;
    deleteLinger = deleteLinger == null ? Duration.ofMillis(100) : deleteLinger;
    checksumValidation = checksumValidation != null && checksumValidation;
    receiveLinger = receiveLinger == null ? Duration.ZERO : receiveLinger;
    ioThreads = ioThreads == null ? 1 : ioThreads;

    if (!endpoint.isEmpty()) {
      URI uri;
      try {
        uri = URI.create(endpoint);
      } catch (IllegalArgumentException e) {
        uri = null;
      }
      if (uri == null
          || uri.getHost() == null
          || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        throw new IllegalArgumentException(
            P
                + "endpoint '"
                + endpoint
                + "' is not an http(s) URL; use e.g. http://127.0.0.1:4566 (LocalStack), or leave it empty");
      }
    }
    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException(
          P
              + "access-key and "
              + P
              + "secret-key must be set together (or both left empty to use the default credentials chain)");
    }
    require(pollers >= 1 && pollers <= 50, "pollers", pollers, "between 1 and 50, e.g. 4");
    require(
        !waitTime.isNegative() && waitTime.compareTo(Duration.ofSeconds(20)) <= 0,
        "wait-time",
        waitTime,
        "between 0s and 20s (the SQS maximum), e.g. 20s");
    require(
        visibilityTimeout.compareTo(Duration.ofSeconds(1)) >= 0
            && visibilityTimeout.compareTo(Duration.ofHours(12)) <= 0,
        "visibility-timeout",
        visibilityTimeout,
        "between 1s and 12h, e.g. 30s");
    require(
        maxInFlight >= 1 && maxInFlight <= 100_000,
        "max-in-flight",
        maxInFlight,
        "between 1 and 100000, e.g. 100");
    require(
        !batchLinger.isNegative() && batchLinger.compareTo(Duration.ofSeconds(1)) <= 0,
        "batch-linger",
        batchLinger,
        "between 0ms and 1s, e.g. 5ms");
    require(
        maxBatchRequestsInFlight >= 1 && maxBatchRequestsInFlight <= 256,
        "max-batch-requests-in-flight",
        maxBatchRequestsInFlight,
        "between 1 and 256, e.g. 8");
    require(
        maxBatchBytes >= 1024 && maxBatchBytes <= SQS_MAX_BATCH_BYTES,
        "max-batch-bytes",
        maxBatchBytes,
        "between 1024 and 1048576 (1 MiB, the SQS quota); 262144 for LocalStack 4.3");
    require(sendBufferSize >= 10, "send-buffer-size", sendBufferSize, "at least 10, e.g. 10000");
    require(
        batching.equals(ADAPTIVE) || batching.equals(FIXED),
        "batching",
        batching,
        "to adaptive or fixed");
    require(
        batchSize >= 1 && batchSize <= 10,
        "batch-size",
        batchSize,
        "between 1 and 10 (the SQS limit), e.g. 10");
    require(
        workerThreads >= 1 && workerThreads <= 64,
        "worker-threads",
        workerThreads,
        "between 1 and 64, e.g. 2");
    require(
        !deleteLinger.isNegative()
            && deleteLinger.compareTo(Duration.ofSeconds(1)) <= 0
            && deleteLinger.multipliedBy(2).compareTo(visibilityTimeout) < 0,
        "delete-linger",
        deleteLinger,
        "between 0ms and 1s and below half of visibility-timeout ("
            + visibilityTimeout
            + "), e.g. 100ms");
    require(
        !receiveLinger.isNegative() && receiveLinger.compareTo(Duration.ofSeconds(1)) <= 0,
        "receive-linger",
        receiveLinger,
        "between 0ms and 1s, e.g. 0ms");
    require(ioThreads >= 1 && ioThreads <= 64, "io-threads", ioThreads, "between 1 and 64, e.g. 1");
  }

  /**
   * A new batch policy for one batcher of the adapter: adaptive or fixed, as configured.
   *
   * @param requestsInFlight the batcher's concurrent requests (the adaptive policy's slots)
   */
  public BatchPolicy newBatchPolicy(int requestsInFlight) {
    return FIXED.equals(batching)
        ? new FixedBatchPolicy(batchSize, batchLinger)
        : new AdaptiveBatchPolicy(batchSize, batchLinger, requestsInFlight);
  }

  private static void require(boolean ok, String name, Object value, String expected) {
    if (!ok) {
      throw new IllegalArgumentException(
          P + name + "=" + value + " is invalid; set it " + expected);
    }
  }

  /** All defaults: embedded ElasticMQ on 127.0.0.1:9324. */
  public static SqsChannelProperties defaults() {
    return builder().build();
  }

  /** Defaults, but against the given endpoint (LocalStack, ElasticMQ) with dummy credentials. */
  public static SqsChannelProperties forEndpoint(URI endpoint) {
    return builder().endpoint(endpoint.toString()).build();
  }

  /** Settings with every default, to change with {@link Builder}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder that starts from these settings ({@code createQueues} keeps the value it has here,
   * also when it was derived from the endpoint).
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.enabled = enabled;
    b.endpoint = endpoint;
    b.region = region;
    b.accessKey = accessKey;
    b.secretKey = secretKey;
    b.createQueues = createQueues;
    b.pollers = pollers;
    b.waitTime = waitTime;
    b.visibilityTimeout = visibilityTimeout;
    b.maxInFlight = maxInFlight;
    b.batchLinger = batchLinger;
    b.maxBatchRequestsInFlight = maxBatchRequestsInFlight;
    b.maxBatchBytes = maxBatchBytes;
    b.sendBufferSize = sendBufferSize;
    b.embedded = embedded;
    b.redelivery = redelivery;
    b.batching = batching;
    b.batchSize = batchSize;
    b.workerThreads = workerThreads;
    b.deleteLinger = deleteLinger;
    b.checksumValidation = checksumValidation;
    b.receiveLinger = receiveLinger;
    b.ioThreads = ioThreads;
    return b;
  }

  /**
   * Builds {@link SqsChannelProperties} outside Spring Boot. Its initial values are the documented
   * defaults, the same as the {@code @DefaultValue}s of the record (AdapterPropertiesDefaultsTest
   * in activity-service checks that they agree); {@code region}, {@code accessKey}, {@code
   * secretKey} are unset and {@code createQueues} is derived unless set.
   */
  public static final class Builder {
    private boolean enabled = true;
    private String endpoint = "";
    private String region;
    private String accessKey;
    private String secretKey;
    private Boolean createQueues;
    private int pollers = 4;
    private Duration waitTime = Duration.ofSeconds(20);
    private Duration visibilityTimeout = Duration.ofSeconds(30);
    private int maxInFlight = 100;
    private Duration batchLinger = Duration.ofMillis(5);
    private int maxBatchRequestsInFlight = 8;
    private int maxBatchBytes = SQS_MAX_BATCH_BYTES;
    private int sendBufferSize = 10_000;
    private Embedded embedded = new Embedded(null);
    private RedeliverySettings redelivery = RedeliverySettings.defaults();
    private String batching = ADAPTIVE;
    private int batchSize = 10;
    private int workerThreads = 2;
    private Duration deleteLinger = Duration.ofMillis(100);
    private boolean checksumValidation = false;
    private Duration receiveLinger = Duration.ZERO;
    private int ioThreads = 1;

    private Builder() {}

    /** See {@link SqsChannelProperties#enabled()}. */
    public Builder enabled(boolean value) {
      enabled = value;
      return this;
    }

    /** See {@link SqsChannelProperties#endpoint()}. */
    public Builder endpoint(String value) {
      endpoint = value;
      return this;
    }

    /** See {@link SqsChannelProperties#region()}. */
    public Builder region(String value) {
      region = value;
      return this;
    }

    /** See {@link SqsChannelProperties#accessKey()}. */
    public Builder accessKey(String value) {
      accessKey = value;
      return this;
    }

    /** See {@link SqsChannelProperties#secretKey()}. */
    public Builder secretKey(String value) {
      secretKey = value;
      return this;
    }

    /** See {@link SqsChannelProperties#createQueues()}. */
    public Builder createQueues(Boolean value) {
      createQueues = value;
      return this;
    }

    /** See {@link SqsChannelProperties#pollers()}. */
    public Builder pollers(int value) {
      pollers = value;
      return this;
    }

    /** See {@link SqsChannelProperties#waitTime()}. */
    public Builder waitTime(Duration value) {
      waitTime = value;
      return this;
    }

    /** See {@link SqsChannelProperties#visibilityTimeout()}. */
    public Builder visibilityTimeout(Duration value) {
      visibilityTimeout = value;
      return this;
    }

    /** See {@link SqsChannelProperties#maxInFlight()}. */
    public Builder maxInFlight(int value) {
      maxInFlight = value;
      return this;
    }

    /** See {@link SqsChannelProperties#batchLinger()}. */
    public Builder batchLinger(Duration value) {
      batchLinger = value;
      return this;
    }

    /** See {@link SqsChannelProperties#maxBatchRequestsInFlight()}. */
    public Builder maxBatchRequestsInFlight(int value) {
      maxBatchRequestsInFlight = value;
      return this;
    }

    /** See {@link SqsChannelProperties#maxBatchBytes()}. */
    public Builder maxBatchBytes(int value) {
      maxBatchBytes = value;
      return this;
    }

    /** See {@link SqsChannelProperties#sendBufferSize()}. */
    public Builder sendBufferSize(int value) {
      sendBufferSize = value;
      return this;
    }

    /** See {@link SqsChannelProperties#embedded()}. */
    public Builder embedded(Embedded value) {
      embedded = value;
      return this;
    }

    /** See {@link SqsChannelProperties#redelivery()}. */
    public Builder redelivery(RedeliverySettings value) {
      redelivery = value;
      return this;
    }

    /** See {@link SqsChannelProperties#batching()}. */
    public Builder batching(String value) {
      batching = value;
      return this;
    }

    /** See {@link SqsChannelProperties#batchSize()}. */
    public Builder batchSize(int value) {
      batchSize = value;
      return this;
    }

    /** See {@link SqsChannelProperties#workerThreads()}. */
    public Builder workerThreads(int value) {
      workerThreads = value;
      return this;
    }

    /** See {@link SqsChannelProperties#deleteLinger()}. */
    public Builder deleteLinger(Duration value) {
      deleteLinger = value;
      return this;
    }

    /** See {@link SqsChannelProperties#checksumValidation()}. */
    public Builder checksumValidation(boolean value) {
      checksumValidation = value;
      return this;
    }

    /** See {@link SqsChannelProperties#receiveLinger()}. */
    public Builder receiveLinger(Duration value) {
      receiveLinger = value;
      return this;
    }

    /** See {@link SqsChannelProperties#ioThreads()}. */
    public Builder ioThreads(int value) {
      ioThreads = value;
      return this;
    }

    /** The settings, checked as at start-up. */
    public SqsChannelProperties build() {
      return new SqsChannelProperties(
          enabled,
          endpoint,
          region,
          accessKey,
          secretKey,
          createQueues,
          pollers,
          waitTime,
          visibilityTimeout,
          maxInFlight,
          batchLinger,
          maxBatchRequestsInFlight,
          maxBatchBytes,
          sendBufferSize,
          embedded,
          redelivery,
          batching,
          batchSize,
          workerThreads,
          deleteLinger,
          checksumValidation,
          receiveLinger,
          ioThreads);
    }
  }

  /** Whether the embedded ElasticMQ is used: no endpoint configured and the server enabled. */
  public boolean usesEmbeddedServer() {
    return endpoint.isEmpty() && embedded.enabled();
  }

  /**
   * Like the generated one, but the {@code secretKey} prints as {@code ***} (settings end up in
   * logs).
   */
  @Override
  public String toString() {
    return Redaction.record(this, java.util.Set.of("secretKey"));
  }

  /**
   * Whether the embedded ElasticMQ serves SQS when no endpoint is configured ({@code
   * activity.channels.sqs.embedded.enabled}). Where it listens ({@code embedded.host}, {@code
   * embedded.port}) is bound by the {@code adapter-sqs-embedded} module, which starts it; this
   * adapter only needs to know whether to expect it.
   *
   * @param enabled start it when no endpoint is configured (default); false means real AWS
   */
  public record Embedded(@DefaultValue("true") Boolean enabled) {

    public Embedded {
      enabled = enabled == null || enabled;
    }
  }
}
