package io.activityservice.app.support;

import io.activityservice.channel.sqs.LocalStackSqs;
import io.activityservice.channel.sqs.SqsChannelAdapter;
import io.activityservice.channel.sqs.SqsChannelProperties;
import io.activityservice.testsupport.ServiceProcess;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The start-up the multi-process ITs share (fault and cluster): the packaged jar, a {@link
 * ServiceProcess} on a free port with the tests' admin key ({@link Api#ADMIN_KEY}, so {@code new
 * Api(service.port())} works), and the arguments and client of a service on LocalStack's SQS.
 */
public final class PackagedService {

  /**
   * How long a start may take before the test fails: generous, because a loaded 2-core CI machine
   * has needed 150 s and more for one replica (the ITs measured nothing with it; a slow start only
   * makes them slower).
   */
  public static final java.time.Duration START = ServiceProcess.PATIENT_START;

  private PackagedService() {}

  /**
   * The jar under test: {@code -Dservice.jar}, else the one {@code package} just built (failsafe
   * runs after it).
   */
  public static Path jar() {
    return jar("service.jar");
  }

  /**
   * The jar named by system property {@code property}, falling back to {@code -Dservice.jar} and
   * the built one.
   */
  public static Path jar(String property) {
    Path jar =
        Path.of(
            System.getProperty(
                property,
                System.getProperty("service.jar", "target/activity-service-0.1.0-SNAPSHOT.jar")));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "no service jar at "
              + jar.toAbsolutePath()
              + ": run the ITs with `-pl activity-service -am verify` (it packages the jar first) or set -D"
              + property);
    }
    return jar;
  }

  /**
   * The service from {@link #jar()} with {@code args}, on a free port, appending its output to
   * {@code log}.
   */
  public static ServiceProcess process(Path log, List<String> args) {
    return process(jar(), log, args);
  }

  /**
   * The service from {@code jar} with {@code args}, on a free port, appending its output to {@code
   * log}.
   */
  public static ServiceProcess process(Path jar, Path log, List<String> args) {
    return ServiceProcess.builder(jar, ServiceProcess.freePort())
        .log(log)
        .jvmArgs(List.of("-Xmx512m"))
        .args(args)
        .adminKey(Api.ADMIN_KEY)
        .stopGrace(java.time.Duration.ofSeconds(20))
        .build();
  }

  /**
   * The arguments of a service whose SQS channels use LocalStack at {@code endpoint} (no embedded
   * ElasticMQ).
   */
  public static List<String> localStackSqsArgs(URI endpoint) {
    return List.of(
        "--activity.channels.sqs.embedded.enabled=false",
        "--activity.channels.sqs.endpoint=" + endpoint,
        "--activity.channels.sqs.region=us-east-1",
        "--activity.channels.sqs.access-key=test",
        "--activity.channels.sqs.secret-key=test",
        "--activity.channels.sqs.max-batch-bytes=" + LocalStackSqs.MAX_BATCH_BYTES);
  }

  /**
   * The test's own SQS client of LocalStack at {@code endpoint}: queues created on demand, a
   * 10,000-event buffer.
   */
  public static SqsChannelAdapter localStackClient(URI endpoint) {
    return SqsChannelAdapter.connect(
        SqsChannelProperties.builder()
            .endpoint(endpoint.toString())
            .region("us-east-1")
            .accessKey("test")
            .secretKey("test")
            .createQueues(true)
            .maxBatchBytes(LocalStackSqs.MAX_BATCH_BYTES)
            .sendBufferSize(10_000)
            .embedded(new SqsChannelProperties.Embedded(false))
            .build());
  }

  /** {@code first} followed by {@code more}. */
  @SafeVarargs
  public static List<String> concat(List<String> first, List<String>... more) {
    java.util.ArrayList<String> all = new java.util.ArrayList<>(first);
    for (List<String> m : more) {
      all.addAll(m);
    }
    return List.copyOf(all);
  }
}
