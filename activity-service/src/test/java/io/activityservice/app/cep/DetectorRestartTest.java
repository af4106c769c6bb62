package io.activityservice.app.cep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.ActivityServiceApplication;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Events;
import io.activityservice.app.support.WebhookReceiver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** Detectors are stored and redeployed when the service restarts (two contexts on one H2 file). */
class DetectorRestartTest {

  @TempDir Path dataDir;

  @Test
  void detectorSurvivesRestart() throws Exception {
    String[] args = {
      "--server.port=0",
      "--spring.datasource.url=jdbc:h2:file:"
          + dataDir.resolve("activity")
          + ";DB_CLOSE_ON_EXIT=FALSE"
    };
    try (WebhookReceiver webhook = new WebhookReceiver()) {
      try (ConfigurableApplicationContext first = start(args)) {
        Api api = new Api(port(first));
        assertThat(api.postJson("/api/v1/event-types", Events.READING_TYPE).status())
            .isEqualTo(201);
        assertThat(
                api.postJson(
                        "/api/v1/detectors",
                        Files.readString(
                            Path.of("../complex-event-detector/examples/overload.json")))
                    .status())
            .isEqualTo(201);
      }
      try (ConfigurableApplicationContext second = start(args)) {
        Api api = new Api(port(second));
        var detector = api.get("/api/v1/detectors/overload").json();
        assertThat(detector.get("state").asText()).isEqualTo("deployed");
        assertThat(detector.get("epl").asText()).contains("#length_batch(3)");
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "overloads", "pattern": {"type": ["com.example.meter.overload"]}, "target": "%s"}"""
                .formatted(webhook.url("/o")));
        for (int v : List.of(60, 70, 80)) {
          assertThat(api.publish(Events.reading("after-" + v, "m1", v)).status()).isEqualTo(202);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> webhook.calls("/o").size() == 1);
        assertThat(webhook.calls("/o").get(0).body()).contains("\"avgValue\":70.0");
      }
    }
  }

  private static ConfigurableApplicationContext start(String[] args) {
    return new SpringApplicationBuilder(ActivityServiceApplication.class).run(args);
  }

  private static int port(ConfigurableApplicationContext ctx) {
    return ((WebServerApplicationContext) ctx).getWebServer().getPort();
  }
}
