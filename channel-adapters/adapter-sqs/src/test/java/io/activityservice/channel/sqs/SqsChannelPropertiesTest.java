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
    assertThat(p.embedded().host()).isEqualTo("127.0.0.1");
    assertThat(p.embedded().port()).isEqualTo(9324);
  }

  @Test
  void realAwsDoesNotCreateQueuesByDefault() {
    SqsChannelProperties aws =
        new SqsChannelProperties(
            null,
            null,
            "eu-west-1",
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            new SqsChannelProperties.Embedded(false, null, null));
    assertThat(aws.usesEmbeddedServer()).isFalse();
    assertThat(aws.createQueues()).isFalse();
    assertThat(SqsChannelProperties.forEndpoint(URI.create("http://127.0.0.1:4566")).createQueues())
        .isTrue();
  }

  @Test
  void invalidValuesAreRejectedWithAHint() {
    SqsChannelProperties d = SqsChannelProperties.defaults();
    assertThatThrownBy(() -> d.withReceive(2, Duration.ofSeconds(25), Duration.ofSeconds(30), 10))
        .hasMessageContaining("activity.channels.sqs.wait-time=PT25S")
        .hasMessageContaining("between 0s and 20s");
    assertThatThrownBy(() -> d.withReceive(0, Duration.ofSeconds(1), Duration.ofSeconds(30), 10))
        .hasMessageContaining("pollers");
    assertThatThrownBy(() -> d.withReceive(1, Duration.ofSeconds(1), Duration.ZERO, 10))
        .hasMessageContaining("visibility-timeout");
    assertThatThrownBy(() -> d.withReceive(1, Duration.ofSeconds(1), Duration.ofSeconds(30), 0))
        .hasMessageContaining("max-in-flight");
    assertThatThrownBy(() -> d.withSend(Duration.ofMillis(200), 8, 2_000_000))
        .hasMessageContaining("max-batch-bytes")
        .hasMessageContaining("1048576");
    assertThatThrownBy(() -> d.withSend(Duration.ofSeconds(5), 8, 1024))
        .hasMessageContaining("batch-linger");
    assertThatThrownBy(() -> d.withDeleteLinger(Duration.ofSeconds(2)))
        .hasMessageContaining("delete-linger");
    assertThatThrownBy(
            () ->
                d.withDeleteLinger(Duration.ofMillis(600))
                    .withReceive(1, Duration.ofSeconds(1), Duration.ofSeconds(1), 10))
        .as("delete-linger must stay below half the visibility timeout")
        .hasMessageContaining("delete-linger");
    assertThatThrownBy(() -> d.withReceiveLinger(Duration.ofSeconds(3)))
        .hasMessageContaining("receive-linger");
    assertThatThrownBy(() -> d.withIoThreads(0)).hasMessageContaining("io-threads");
    assertThatThrownBy(() -> SqsChannelProperties.forEndpoint(URI.create("ftp://x")))
        .hasMessageContaining("activity.channels.sqs.endpoint");
    assertThatThrownBy(
            () ->
                new SqsChannelProperties(
                    null, null, null, "AKIA", null, null, null, null, null, null, null, null, null,
                    null, null))
        .hasMessageContaining("secret-key");
    assertThatThrownBy(() -> new SqsChannelProperties.Embedded(null, null, 70_000))
        .hasMessageContaining("embedded.port");
  }

  @Test
  void toStringHidesTheSecretKey() {
    SqsChannelProperties p =
        new SqsChannelProperties(
            null,
            null,
            "eu-west-1",
            "AKIAEXAMPLE",
            "wJalrXUtnFEMI/K7MDENG",
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null);
    assertThat(p.toString())
        .contains("accessKey=AKIAEXAMPLE")
        .contains("secretKey=***")
        .doesNotContain("wJalrXUtnFEMI");
  }
}
