package io.activityservice.app.rules;

import static io.activityservice.app.rules.RuleTestSupport.rule;
import static io.activityservice.app.support.Events.reading;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.ActivityServiceApplication;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.WebhookReceiver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** Rules survive a restart: two application contexts, one after the other, on one H2 file. */
class RulesRestartTest {

  @TempDir Path dataDir;

  @Test
  void ruleIsReloadedAndFiresAfterRestart() {
    List<String> args =
        List.of(
            "--server.port=0",
            "--spring.datasource.url=jdbc:h2:file:"
                + dataDir.resolve("activity")
                + ";DB_CLOSE_ON_EXIT=FALSE");
    try (WebhookReceiver webhook = new WebhookReceiver()) {
      String drl =
          """
          rule "high reading"
          when
            $e : Event( type == "com.example.meter.reading", number("value") > 90 )
          then
            actions.run("webhook", Map.of("url", "%s", "event", $e));
          end
          """
              .formatted(webhook.url("/restart"));
      try (ConfigurableApplicationContext first = start(args)) {
        Api api = new Api(port(first));
        assertThat(api.postJson("/api/v1/rules", rule("survivor", drl)).status()).isEqualTo(201);
      }
      try (ConfigurableApplicationContext second = start(args)) {
        Api api = new Api(port(second));
        assertThat(api.get("/api/v1/rules/survivor").json().get("deployed").asBoolean()).isTrue();
        assertThat(api.publish(reading("after-restart", "m1", 120)).status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls("/restart").size() == 1);
        assertThat(webhook.calls("/restart").get(0).body()).contains("after-restart");
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
