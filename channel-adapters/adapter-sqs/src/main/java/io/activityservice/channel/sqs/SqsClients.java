package io.activityservice.channel.sqs;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Executor;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.SdkAdvancedAsyncClientOption;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsAsyncClientBuilder;

/**
 * Builds the {@link SqsAsyncClient} (Netty) from {@link SqsChannelProperties}: endpoint override
 * with dummy credentials for LocalStack/ElasticMQ, otherwise the default credentials and region
 * chains.
 *
 * <p>Two settings for the hot path (reasons in the module README):
 *
 * <ul>
 *   <li>futures complete on the SDK's I/O thread ({@code FUTURE_COMPLETION_EXECUTOR} = run
 *       directly) instead of a hop to the SDK's own completion pool: the adapter's callbacks never
 *       block (they settle entries and send the next request), and received batches are handed to
 *       the adapter's workers anyway, so the default would add a thread hand-off to every answer;
 *   <li>the MD5 checks of message bodies ({@code checksumValidationEnabled}) follow {@code
 *       checksum-validation} (default off);
 *   <li>the Netty event loops are {@code io-threads} (default 1): with several, a request hops
 *       between the loop that owns the connection pool, the connection's loop and the caller, each
 *       hop an eventfd wake-up.
 * </ul>
 */
public final class SqsClients {

  /** Connections of the shared client; every long poll holds one while it waits. */
  static final int MAX_CONNECTIONS = 512;

  private SqsClients() {}

  /** A client builder configured from {@code properties}; add interceptors etc. before build(). */
  public static SqsAsyncClientBuilder builder(SqsChannelProperties properties) {
    SqsAsyncClientBuilder builder =
        SqsAsyncClient.builder()
            .httpClientBuilder(
                NettyNioAsyncHttpClient.builder()
                    .eventLoopGroupBuilder(
                        SdkEventLoopGroup.builder().numberOfThreads(properties.ioThreads()))
                    .maxConcurrency(MAX_CONNECTIONS)
                    .readTimeout(properties.waitTime().plus(Duration.ofSeconds(15)))
                    .connectionTimeout(Duration.ofSeconds(5))
                    .tcpKeepAlive(true))
            .asyncConfiguration(
                c ->
                    c.advancedOption(
                        SdkAdvancedAsyncClientOption.FUTURE_COMPLETION_EXECUTOR,
                        (Executor) Runnable::run))
            .checksumValidationEnabled(properties.checksumValidation());
    boolean override = !properties.endpoint().isEmpty();
    if (override) {
      builder.endpointOverride(URI.create(properties.endpoint()));
    }
    if (properties.region() != null) {
      builder.region(Region.of(properties.region()));
    } else if (override) {
      builder.region(Region.US_EAST_1);
    }
    if (properties.accessKey() != null) {
      builder.credentialsProvider(
          StaticCredentialsProvider.create(
              AwsBasicCredentials.create(properties.accessKey(), properties.secretKey())));
    } else if (override) {
      builder.credentialsProvider(
          StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")));
    } else {
      builder.credentialsProvider(DefaultCredentialsProvider.builder().build());
    }
    return builder;
  }
}
