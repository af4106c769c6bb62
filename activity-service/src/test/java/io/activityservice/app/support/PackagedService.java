package io.activityservice.app.support;

import io.activityservice.channel.sqs.LocalStackSqs;
import io.activityservice.channel.sqs.SqsChannelAdapter;
import io.activityservice.channel.sqs.SqsChannelProperties;
import io.activityservice.testsupport.ServiceProcess;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
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
    String named = System.getProperty(property, System.getProperty("service.jar"));
    Path jar = Path.of(named != null ? named : BUILT_JAR);
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "no service jar at "
              + jar.toAbsolutePath()
              + ": run the ITs with `-pl activity-service -am verify` (it packages the jar first) or set -D"
              + property);
    }
    if (named == null) {
      // A jar named on purpose (an older version, a release) is what the caller wants; the built
      // one must be the code under test.
      requireCurrent(jar, Path.of(".."));
    }
    return jar;
  }

  /** A nested jar of a module of this project: its artifact id, then its version. */
  private static final java.util.regex.Pattern SNAPSHOT_LIB =
      java.util.regex.Pattern.compile("(.+?)-\\d[^/]*-SNAPSHOT\\.jar");

  /** The jar {@code package} builds, relative to the module's directory (the tests' cwd). */
  static final String BUILT_JAR = "target/activity-service-0.1.0-SNAPSHOT.jar";

  /**
   * Refuses a built jar that is older than the compiled classes of a module of this checkout it
   * contains (the application's own, or one of its {@code BOOT-INF/lib/*-SNAPSHOT.jar}): such a jar
   * is not the code under test. That happens when a packaged IT runs in the {@code test} phase
   * (e.g. {@code -Dtest='*Ordering*'} also matches {@code OrderingPerKeyIT}), before {@code
   * package}: it then tested whatever jar an earlier build left.
   *
   * @param reactorRoot the directory of the project's modules ({@code channel-adapters/*} too)
   */
  static void requireCurrent(Path jar, Path reactorRoot) {
    try {
      FileTime built = Files.getLastModifiedTime(jar);
      List<String> modules = new java.util.ArrayList<>();
      modules.add("activity-service");
      try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
        zip.stream()
            .map(java.util.zip.ZipEntry::getName)
            .filter(n -> n.startsWith("BOOT-INF/lib/") && n.endsWith("-SNAPSHOT.jar"))
            .map(n -> SNAPSHOT_LIB.matcher(n.substring("BOOT-INF/lib/".length())))
            .filter(java.util.regex.Matcher::matches)
            .forEach(m -> modules.add(m.group(1)));
      }
      for (String module : modules) {
        for (Path dir :
            List.of(
                reactorRoot.resolve(module).resolve("target/classes"),
                reactorRoot
                    .resolve("channel-adapters")
                    .resolve(module)
                    .resolve("target/classes"))) {
          Path newer = newestFile(dir);
          if (newer != null && Files.getLastModifiedTime(newer).compareTo(built) > 0) {
            throw new IllegalStateException(
                "the service jar "
                    + jar.toAbsolutePath().normalize()
                    + " (built "
                    + built
                    + ") is older than "
                    + newer.toAbsolutePath().normalize()
                    + " ("
                    + Files.getLastModifiedTime(newer)
                    + "): it is not the code under test. Run packaged ITs through failsafe"
                    + " (`-pl activity-service -am verify -Dit.test=...`, after package), or name a"
                    + " jar with -Dservice.jar");
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("checking the service jar " + jar, e);
    }
  }

  /** The most recently modified file under {@code dir}, or {@code null} if there is none. */
  private static Path newestFile(Path dir) throws java.io.IOException {
    if (!Files.isDirectory(dir)) {
      return null;
    }
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .max(
              java.util.Comparator.comparing(
                  f -> {
                    try {
                      return Files.getLastModifiedTime(f);
                    } catch (java.io.IOException e) {
                      return FileTime.fromMillis(0);
                    }
                  }))
          .orElse(null);
    }
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
