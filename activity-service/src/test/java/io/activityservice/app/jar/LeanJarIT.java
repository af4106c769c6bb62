package io.activityservice.app.jar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.activityservice.channel.sqs.embedded.EmbeddedElasticMq;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two jars the build packages: the quick-start jar carries the embedded ActiveMQ broker and
 * ElasticMQ, the {@code lean} jar none of them (nor the libraries only they use), refuses to start
 * without external brokers, naming the setting, and runs against external ones.
 */
class LeanJarIT {

  @TempDir Path dir;

  private static Path quickStartJar() {
    return Path.of(System.getProperty("service.jar", "target/activity-service-0.1.0-SNAPSHOT.jar"));
  }

  private static Path leanJar() {
    String quick = quickStartJar().toString();
    return Path.of(quick.substring(0, quick.length() - ".jar".length()) + "-lean.jar");
  }

  private static List<String> libraries(Path jar) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      return Collections.list(zip.entries()).stream()
          .map(ZipEntry::getName)
          .filter(n -> n.startsWith("BOOT-INF/lib/"))
          .map(n -> n.substring("BOOT-INF/lib/".length()))
          .toList();
    }
  }

  @Test
  void onlyTheQuickStartJarCarriesTheEmbeddedServers() throws IOException {
    List<String> quick = libraries(quickStartJar());
    List<String> lean = libraries(leanJar());
    List<String> embeddedOnly =
        List.of(
            "adapter-jms-embedded-",
            "adapter-sqs-embedded-",
            "activemq-broker-",
            "activemq-kahadb-store-",
            "elasticmq-",
            "pekko-",
            "scala-library-");
    for (String prefix : embeddedOnly) {
      assertThat(quick).as("quick-start jar").anyMatch(n -> n.startsWith(prefix));
      assertThat(lean).as("lean jar").noneMatch(n -> n.startsWith(prefix));
    }
    for (String prefix :
        List.of("adapter-jms-", "adapter-sqs-", "activemq-client-", "sqs-", "event-service-")) {
      assertThat(lean).as("lean jar").anyMatch(n -> n.startsWith(prefix));
    }
    assertThat(quick).containsAll(lean);
  }

  @Test
  void leanJarWithoutBrokerUrlRefusesToStartAndSaysWhatToSet() throws Exception {
    Path log = dir.resolve("refused.log");
    Process p = start(List.of("--server.port=" + freePort()), log);
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("the lean jar exits").isTrue();
    assertThat(p.exitValue()).isNotZero();
    assertThat(Files.readString(log)).contains("activity.channels.jms.broker-url is empty");
  }

  @Test
  void leanJarRunsAgainstExternalBrokers() throws Exception {
    try (EmbeddedActiveMqBroker broker =
            EmbeddedActiveMqBroker.start("127.0.0.1", 0, dir.resolve("broker").toFile(), false);
        EmbeddedElasticMq sqs = EmbeddedElasticMq.start("127.0.0.1", 0)) {
      Path log = dir.resolve("lean.log");
      Process p =
          start(
              List.of(
                  "--server.port=" + freePort(),
                  "--activity.channels.jms.broker-url=" + broker.connectUri(),
                  "--activity.channels.sqs.endpoint=" + sqs.endpoint()),
              log);
      try {
        await()
            .atMost(Duration.ofSeconds(180))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> !p.isAlive() || Files.readString(log).contains("Started "));
        assertThat(p.isAlive()).as("the lean jar runs; log: %s", log).isTrue();
        assertThat(Files.readString(log))
            .doesNotContain("Embedded ActiveMQ broker listening")
            .doesNotContain("embedded ElasticMQ");
      } finally {
        p.destroy();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  private Process start(List<String> args, Path log) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-XX:TieredStopAtLevel=1",
                "-jar",
                leanJar().toString(),
                "--spring.datasource.url=jdbc:h2:file:" + dir.resolve("db/activity")));
    command.addAll(args);
    // Run in the temporary directory: the defaults' ./data (admin key) stays there.
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .directory(dir.toFile())
        .start();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
