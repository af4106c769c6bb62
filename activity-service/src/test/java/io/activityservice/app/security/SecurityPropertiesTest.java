package io.activityservice.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The security settings record: pure logic. */
class SecurityPropertiesTest {

  @Test
  void settingsRedactTheBootstrapKeyAndExplainBadValues() {
    String key = "k".repeat(40);
    SecurityProperties props = new SecurityProperties(null, key, null, null, null);
    assertThat(props.toString()).doesNotContain(key).contains("bootstrapAdminKey=(set, redacted)");
    assertThat(props.enabled()).isTrue();
    assertThat(props.keyCacheTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(props.jwt().enabled()).isFalse();
    assertThat(props.jwt().rolesClaim()).isEqualTo("roles");
    assertThatThrownBy(() -> new SecurityProperties(true, "k".repeat(40) + " with spaces", null, null, null))
        .hasMessageContaining("openssl rand -hex 32");
    assertThatThrownBy(() -> new SecurityProperties.Jwt(List.of("https://a.example", "https://b.example"),
        "https://a.example/jwks", null, null, null)).hasMessageContaining("with several issuers leave it empty");
    assertThatThrownBy(() -> new SecurityProperties.Jwt(List.of("ftp://a.example"), null, null, null, null))
        .hasMessageContaining("activity.security.jwt.issuer-uri must be an absolute http(s) URL");
  }
}
