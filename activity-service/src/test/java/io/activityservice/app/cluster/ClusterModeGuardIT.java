package io.activityservice.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.PackagedService;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.activityservice.testsupport.ServiceProcess;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Two packaged replicas on one PostgreSQL, started the way a team that outgrew one machine would
 * first try it: without {@code activity.cluster.enabled}. The second refuses to start and says
 * which setting to change, instead of silently splitting every detector's input between the two; a
 * replica in cluster mode refuses to join the one running without it; and {@code GET
 * /api/v1/cluster} says which mode the first one runs.
 */
class ClusterModeGuardIT {

  @Test
  void aSecondReplicaOnTheSameDatabaseWithoutClusterModeRefusesToStart() throws Exception {
    Path dir =
        Files.createDirectories(
            Path.of("target", "cluster-mode-guard-it", String.valueOf(System.currentTimeMillis())));
    Path jar = PackagedService.jar();
    List<AutoCloseable> open = new ArrayList<>();
    try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
        EmbeddedActiveMqBroker broker =
            EmbeddedActiveMqBroker.start("127.0.0.1", 0, dir.resolve("broker").toFile(), false)) {
      ServiceProcess first = replica(jar, dir, "first", postgres, broker, false);
      open.add(first);
      first.start(PackagedService.START);

      ServiceProcess second = replica(jar, dir, "second", postgres, broker, false);
      open.add(second);
      assertThatThrownBy(() -> second.start(PackagedService.START))
          .hasMessageContaining("service exited");
      assertThat(Files.readString(dir.resolve("replica-second.log")))
          .contains("APPLICATION FAILED TO START")
          .contains("other replicas are running on this database: first (cluster mode off)")
          .contains("Start every replica with activity.cluster.enabled=true");

      ServiceProcess clustered = replica(jar, dir, "clustered", postgres, broker, true);
      open.add(clustered);
      assertThatThrownBy(() -> clustered.start(PackagedService.START))
          .hasMessageContaining("service exited");
      assertThat(Files.readString(dir.resolve("replica-clustered.log")))
          .contains("other replicas run on this database without cluster mode: first")
          .contains("activity.cluster.enabled=true");

      JsonNode view = new Api(first.port()).get("/api/v1/cluster").json();
      assertThat(view.get("mode").asText()).isEqualTo("single");
      assertThat(view.get("replicas")).as("the refused replicas left no row").hasSize(1);
      assertThat(view.get("replicas").get(0).get("replicaId").asText()).isEqualTo("first");
      assertThat(view.get("replicas").get(0).get("mode").asText()).isEqualTo("single");
    } finally {
      for (AutoCloseable c : open) {
        c.close();
      }
    }
  }

  private static ServiceProcess replica(
      Path jar,
      Path dir,
      String name,
      EmbeddedPostgres postgres,
      EmbeddedActiveMqBroker broker,
      boolean clustered)
      throws Exception {
    return PackagedService.process(
        jar,
        dir.resolve("replica-" + name + ".log"),
        List.of(
            "--spring.datasource.url=jdbc:postgresql://127.0.0.1:"
                + postgres.getPort()
                + "/postgres",
            "--spring.datasource.username=postgres",
            "--spring.datasource.password=postgres",
            "--activity.channels.jms.broker-url=" + broker.connectUri(),
            "--activity.cluster.enabled=" + clustered,
            "--activity.cluster.replica-id=" + name,
            "--activity.channels.sqs.embedded.enabled=false",
            "--activity.channels.sqs.enabled=false"));
  }
}
