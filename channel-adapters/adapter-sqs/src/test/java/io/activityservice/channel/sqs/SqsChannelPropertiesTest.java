package io.activityservice.channel.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Defaults and start-up validation of {@link SqsChannelProperties}. */
class SqsChannelPropertiesTest {

  @Test
  void defaultsUseTheEmbeddedServer() {
    SqsChannelProperties p = SqsChannelProperties.defaults();
    assertThat(p.enabled()).isTrue();
    assertThat(p.usesEmbeddedServer()).isTrue();
    assertThat(p.createQueues()).isTrue();
    assertThat(p.pollers()).isEqualTo(4);
    assertThat(p.deleteLinger()).isEqualTo(Duration.ofMillis(100));
    assertThat(p.checksumValidation()).isFalse();
    assertThat(p.receiveLinger()).isZero();
    assertThat(p.ioThreads()).isEqualTo(1);
    assertThat(p.waitTime()).isEqualTo(Duration.ofSeconds(20));
    assertThat(p.visibilityTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(p.batchLinger()).isEqualTo(Duration.ofMillis(5));
    assertThat(p.maxBatchBytes()).isEqualTo(1_048_576);
    assertThat(p.embedded().enabled()).isTrue();
  }

  @Test
  void realAwsDoesNotCreateQueuesByDefault() {
    SqsChannelProperties aws =
        SqsChannelProperties.builder()
            .region("eu-west-1")
            .embedded(new SqsChannelProperties.Embedded(false))
            .build();
    assertThat(aws.usesEmbeddedServer()).isFalse();
    assertThat(aws.createQueues()).isFalse();
    assertThat(SqsChannelProperties.forEndpoint(URI.create("http://127.0.0.1:4566")).createQueues())
        .isTrue();
  }

  @Test
  void invalidValuesAreRejectedWithAHint() {
    SqsChannelProperties d = SqsChannelProperties.defaults();
    assertThatThrownBy(
            () ->
                d.toBuilder()
                    .pollers(2)
                    .waitTime(Duration.ofSeconds(25))
                    .visibilityTimeout(Duration.ofSeconds(30))
                    .maxInFlight(10)
                    .build())
        .hasMessageContaining("activity.channels.sqs.wait-time=PT25S")
        .hasMessageContaining("between 0s and 20s");
    assertThatThrownBy(
            () ->
                d.toBuilder()
                    .pollers(0)
                    .waitTime(Duration.ofSeconds(1))
                    .visibilityTimeout(Duration.ofSeconds(30))
                    .maxInFlight(10)
                    .build())
        .hasMessageContaining("pollers");
    assertThatThrownBy(
            () ->
                d.toBuilder()
                    .pollers(1)
                    .waitTime(Duration.ofSeconds(1))
                    .visibilityTimeout(Duration.ZERO)
                    .maxInFlight(10)
                    .build())
        .hasMessageContaining("visibility-timeout");
    assertThatThrownBy(
            () ->
                d.toBuilder()
                    .pollers(1)
                    .waitTime(Duration.ofSeconds(1))
                    .visibilityTimeout(Duration.ofSeconds(30))
                    .maxInFlight(0)
                    .build())
        .hasMessageContaining("max-in-flight");
    assertThatThrownBy(
            () ->
                d.toBuilder()
                    .batchLinger(Duration.ofMillis(200))
                    .maxBatchRequestsInFlight(8)
                    .maxBatchBytes(2_000_000)
                    .build())
        .hasMessageContaining("max-batch-bytes")
        .hasMessageContaining("1048576");
    assertThatThrownBy(
            () ->
                d.toBuilder()
                    .batchLinger(Duration.ofSeconds(5))
                    .maxBatchRequestsInFlight(8)
                    .maxBatchBytes(1024)
                    .build())
        .hasMessageContaining("batch-linger");
    assertThatThrownBy(() -> d.toBuilder().deleteLinger(Duration.ofSeconds(2)).build())
        .hasMessageContaining("delete-linger");
    assertThatThrownBy(
            () ->
                d.toBuilder()
                    .deleteLinger(Duration.ofMillis(600))
                    .pollers(1)
                    .waitTime(Duration.ofSeconds(1))
                    .visibilityTimeout(Duration.ofSeconds(1))
                    .maxInFlight(10)
                    .build())
        .as("delete-linger must stay below half the visibility timeout")
        .hasMessageContaining("delete-linger");
    assertThatThrownBy(() -> d.toBuilder().receiveLinger(Duration.ofSeconds(3)).build())
        .hasMessageContaining("receive-linger");
    assertThatThrownBy(() -> d.toBuilder().ioThreads(0).build()).hasMessageContaining("io-threads");
    assertThatThrownBy(() -> SqsChannelProperties.forEndpoint(URI.create("ftp://x")))
        .hasMessageContaining("activity.channels.sqs.endpoint");
    assertThatThrownBy(() -> SqsChannelProperties.builder().accessKey("AKIA").build())
        .hasMessageContaining("secret-key");
  }

  @Test
  void toStringHidesTheSecretKey() {
    SqsChannelProperties p =
        SqsChannelProperties.builder()
            .region("eu-west-1")
            .accessKey("AKIAEXAMPLE")
            .secretKey("wJalrXUtnFEMI/K7MDENG")
            .build();
    assertThat(p.toString())
        .contains("accessKey=AKIAEXAMPLE")
        .contains("secretKey=***")
        .doesNotContain("wJalrXUtnFEMI");
  }
}
