package io.activityservice.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.app.config.PropertiesBinding;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The security settings record: pure logic. */
class SecurityPropertiesTest {

  @Test
  void settingsRedactTheBootstrapKeyAndExplainBadValues() {
    String key = "k".repeat(40);
    SecurityProperties props =
        PropertiesBinding.bind(
            "activity.security",
            SecurityProperties.class,
            Map.of("bootstrap-admin-key", key, "jwt.issuer-uri", ""));
    assertThat(props.toString()).doesNotContain(key).contains("bootstrapAdminKey=(set, redacted)");
    assertThat(props.enabled()).isTrue();
    assertThat(props.keyCacheTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(props.jwt().enabled()).isFalse();
    assertThat(props.jwt().rolesClaim()).isEqualTo("roles");
    assertThat(props.adminKeyFile()).hasToString("data/admin.key");
    assertThatThrownBy(
            () ->
                PropertiesBinding.bind(
                    "activity.security",
                    SecurityProperties.class,
                    Map.of("bootstrap-admin-key", "k".repeat(40) + " with spaces")))
        .rootCause()
        .hasMessageContaining("openssl rand -hex 32");
    assertThatThrownBy(
            () ->
                new SecurityProperties.Jwt(
                    List.of("https://a.example", "https://b.example"),
                    "https://a.example/jwks",
                    List.of(),
                    "roles",
                    "event_types"))
        .hasMessageContaining("with several issuers leave it empty");
    assertThatThrownBy(
            () ->
                new SecurityProperties.Jwt(
                    List.of("ftp://a.example"), null, List.of(), "roles", "event_types"))
        .hasMessageContaining("activity.security.jwt.issuer-uri must be an absolute http(s) URL");
    assertThatThrownBy(
            () ->
                PropertiesBinding.bind(
                    "activity.security", SecurityProperties.class, Map.of("jwt.roles-claim", " ")))
        .rootCause()
        .hasMessageContaining("remove them to use the defaults");
  }
}
