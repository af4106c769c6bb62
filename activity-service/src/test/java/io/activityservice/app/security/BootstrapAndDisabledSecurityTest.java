package io.activityservice.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.app.ActivityServiceApplication;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * How the first admin gets in (the bootstrap key property; else a key generated at first start into
 * {@code data/admin.key}, owner-only), {@code activity.security.enabled=false}, and start-up
 * validation. Each start is a whole application on its own H2 file.
 */
@ExtendWith(OutputCaptureExtension.class)
class BootstrapAndDisabledSecurityTest {

  @TempDir Path dir;

  private List<String> args(String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--server.port=0",
                "--spring.datasource.url=jdbc:h2:file:"
                    + dir.resolve("db/activity")
                    + ";DB_CLOSE_ON_EXIT=FALSE",
                "--activity.security.admin-key-file=" + dir.resolve("data/admin.key")));
    args.addAll(List.of(more));
    return args;
  }

  private static ConfigurableApplicationContext start(List<String> args) {
    return new SpringApplicationBuilder(ActivityServiceApplication.class)
        .run(args.toArray(String[]::new));
  }

  private static int port(ConfigurableApplicationContext ctx) {
    return ((WebServerApplicationContext) ctx).getWebServer().getPort();
  }

  @Test
  void theBootstrapKeyFromThePropertyIsAnAdminAndNoFileIsWritten(CapturedOutput output) {
    String key = "operator-chosen-admin-key-" + "x".repeat(20);
    try (ConfigurableApplicationContext ctx =
        start(args("--activity.security.bootstrap-admin-key=" + key))) {
      Api admin = new Api(port(ctx), key);
      assertThat(admin.get("/api/v1/api-keys").status()).isEqualTo(200);
      assertThat(admin.get("/api/v1/audit").status()).isEqualTo(200);
      assertThat(new Api(port(ctx), Api.ADMIN_KEY).get("/api/v1/api-keys").status())
          .as("the test suite's default key is replaced, not added")
          .isEqualTo(401);
      Response created =
          admin.postJson("/api/v1/event-types", "{\"type\": \"com.example.bootstrapped\"}");
      assertThat(created.status()).isEqualTo(201);
      assertThat(admin.get("/api/v1/audit").json().get("items").get(0).get("actor").asText())
          .isEqualTo("key:bootstrap");
    }
    assertThat(dir.resolve("data/admin.key")).doesNotExist();
    assertThat(output.getAll())
        .contains("admin key: activity.security.bootstrap-admin-key")
        .doesNotContain(key);
  }

  @Test
  void withoutABootstrapKeyTheFirstStartWritesAnOwnerOnlyAdminKeyFile(CapturedOutput output)
      throws Exception {
    Path file = dir.resolve("data/admin.key");
    List<String> args = args("--activity.security.bootstrap-admin-key=");
    String generated;
    String generatedId;
    try (ConfigurableApplicationContext ctx = start(args)) {
      assertThat(file).exists();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo("rw-------");
      generated = Files.readString(file).trim();
      assertThat(generated).matches("ask_[a-z0-9]{16}_[A-Za-z0-9_-]{43}");
      generatedId = generated.substring(4, 20);
      Api admin = new Api(port(ctx), generated);
      Response keys = admin.get("/api/v1/api-keys");
      assertThat(keys.status()).isEqualTo(200);
      assertThat(keys.json().get(0).get("id").asText()).isEqualTo(generatedId);
      assertThat(keys.json().get(0).get("roles").get(0).asText()).isEqualTo("admin");
      assertThat(new Api(port(ctx), Api.ADMIN_KEY).get("/api/v1/api-keys").status()).isEqualTo(401);
    }
    assertThat(output.getAll())
        .contains("generated admin key " + generatedId)
        .contains(file.toString())
        .contains("readable by this user only")
        .doesNotContain(generated.substring(21));

    // A restart keeps the stored key and does not touch the file.
    long modified = Files.getLastModifiedTime(file).toMillis();
    try (ConfigurableApplicationContext ctx = start(args)) {
      assertThat(Files.readString(file).trim()).isEqualTo(generated);
      assertThat(Files.getLastModifiedTime(file).toMillis()).isEqualTo(modified);
      Api admin = new Api(port(ctx), generated);
      assertThat(admin.get("/api/v1/api-keys").status()).isEqualTo(200);
      // Revoking the last admin key: the next start generates a new one.
      assertThat(admin.delete("/api/v1/api-keys/" + generatedId).status()).isEqualTo(204);
      assertThat(admin.get("/api/v1/api-keys").status()).isEqualTo(401);
    }
    try (ConfigurableApplicationContext ctx = start(args)) {
      String second = Files.readString(file).trim();
      assertThat(second).isNotEqualTo(generated).startsWith("ask_");
      assertThat(new Api(port(ctx), second).get("/api/v1/api-keys").status()).isEqualTo(200);
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo("rw-------");
    }
  }

  @Test
  void disabledSecurityLetsEverybodyInAndWarnsLoudly(CapturedOutput output) {
    try (ConfigurableApplicationContext ctx =
        start(
            args(
                "--activity.security.enabled=false", "--activity.security.bootstrap-admin-key="))) {
      Api nobody = new Api(port(ctx), null);
      assertThat(nobody.get("/api/v1/subscriptions").status()).isEqualTo(200);
      assertThat(nobody.get("/actuator/prometheus").status()).isEqualTo(200);
      Response sub =
          nobody.postJson(
              "/api/v1/subscriptions",
              """
          {"name": "trial", "pattern": {"type": ["com.example.trial"]}, "target": "jms:queue:trial.out"}""");
      assertThat(sub.status()).as(sub.body()).isEqualTo(201);
      assertThat(sub.json().get("owner").asText()).isEqualTo("anonymous");
      assertThat(
              nobody
                  .publish(
                      """
          {"specversion": "1.0", "id": "t-1", "source": "/trial", "type": "com.example.trial"}""")
                  .status())
          .isEqualTo(202);
      assertThat(nobody.get("/api/v1/audit").json().get("items").get(0).get("actor").asText())
          .isEqualTo("anonymous");
    }
    assertThat(output.getAll()).contains("activity.security.enabled=false: AUTHENTICATION IS OFF");
    assertThat(dir.resolve("data/admin.key")).doesNotExist();
  }

  @Test
  void badSecuritySettingsStopTheStartWithAMessageSayingHowToFixThem(CapturedOutput output) {
    assertThatThrownBy(
            () -> start(args("--activity.security.bootstrap-admin-key=too-short-secret")))
        .rootCause()
        .hasMessageContaining(
            "activity.security.bootstrap-admin-key must be at least 32 characters")
        .hasMessageContaining("openssl rand -hex 32")
        .hasMessageNotContaining("too-short-secret");
    assertThat(output.getAll()).contains("openssl rand -hex 32").doesNotContain("too-short-secret");
    assertThatThrownBy(() -> start(args("--activity.security.jwt.jwk-set-uri=not a url")))
        .rootCause()
        .hasMessageContaining("activity.security.jwt.jwk-set-uri must be an absolute http(s) URL");
    assertThatThrownBy(() -> start(args("--activity.security.key-cache-ttl=-1s")))
        .rootCause()
        .hasMessageContaining("activity.security.key-cache-ttl must be between 0 and 1h");
  }
}
