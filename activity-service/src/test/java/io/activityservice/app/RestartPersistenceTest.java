package io.activityservice.app;

import static io.activityservice.app.support.Events.READING_TYPE;
import static io.activityservice.app.support.Events.reading;
import static io.activityservice.app.support.Events.subscription;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.support.Api;
import io.activityservice.app.support.Postgres;
import io.activityservice.app.support.WebhookReceiver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** Types and subscriptions survive a restart of the service, on H2 files and on PostgreSQL. */
class RestartPersistenceTest {

  @TempDir Path dataDir;

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgres"})
  void typeAndSubscriptionSurviveRestart(String database) {
    List<String> args = new ArrayList<>(List.of("--server.port=0"));
    if (database.equals("h2")) {
      args.add(
          "--spring.datasource.url=jdbc:h2:file:"
              + dataDir.resolve("activity")
              + ";DB_CLOSE_ON_EXIT=FALSE");
    } else {
      args.add(
          "--spring.datasource.url=" + Postgres.createDatabase("restart_" + System.nanoTime()));
      args.add("--spring.datasource.username=postgres");
      args.add("--spring.datasource.password=postgres");
    }
    try (WebhookReceiver webhook = new WebhookReceiver()) {
      String subscriptionId;
      try (ConfigurableApplicationContext first = start(args)) {
        Api api = new Api(port(first));
        assertThat(api.postJson("/api/v1/event-types", READING_TYPE).status()).isEqualTo(201);
        subscriptionId =
            api.postJson("/api/v1/subscriptions", subscription("high", webhook.url("/h")))
                .json()
                .get("id")
                .asText();
      }
      try (ConfigurableApplicationContext second = start(args)) {
        Api api = new Api(port(second));
        assertThat(api.get("/api/v1/event-types/com.example.meter.reading").json().get("schema"))
            .isNotNull();
        assertThat(api.get("/api/v1/subscriptions/" + subscriptionId).status()).isEqualTo(200);
        assertThat(api.publish(reading("after-restart", "m1", 120)).status()).isEqualTo(202);
        assertThat(api.publish(reading("violates", "m1", "x")).status()).isEqualTo(400);
        await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls("/h").size() == 1);
        assertThat(webhook.calls("/h").get(0).body()).contains("after-restart");
      }
    }
  }

  private static ConfigurableApplicationContext start(List<String> args) {
    return new SpringApplicationBuilder(ActivityServiceApplication.class)
        .run(args.toArray(String[]::new));
  }

  private static int port(ConfigurableApplicationContext ctx) {
    return ((WebServerApplicationContext) ctx).getWebServer().getPort();
  }
}
