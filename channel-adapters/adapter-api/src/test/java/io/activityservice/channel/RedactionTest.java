package io.activityservice.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedactionTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "https://user:secret@hooks.example.com/hook?token=abc#frag | https://hooks.example.com/hook",
        "HTTPS://Hooks.Example.com:8443/services/T0001/B0002/abcDEF123 | https://hooks.example.com:8443/services/*",
        "http://h.example/Ab3dE9fG7hJ2kL5m | http://h.example/*",
        "http://h.example/0f3c2a9b7d1e4f60 | http://h.example/*",
        "http://h.example/550e8400-e29b-41d4-a716-446655440000 | http://h.example/*",
        "http://h.example/hook/s3cr3t-t0k3n | http://h.example/hook/*",
        "http://h.example/api/webhooks/123/XyZ | http://h.example/api/*",
        "http://h.example/%74oken | http://h.example/*",
        "http://h.example/v1/ | http://h.example/v1/",
        "http://h.example/orders/ | http://h.example/orders/",
        "http://h.example/ | http://h.example/",
        "http://h.example | http://h.example",
        "http://127.0.0.1:9999/hook | http://127.0.0.1:9999/hook",
        "jms:queue:orders?persistent=false | jms:queue:orders",
        "sqs:https://key:secret@sqs.example.com/000000000000/q?x=1 | sqs:https://sqs.example.com/000000000000/q",
        "kafka:orders | kafka:orders",
        "http://[bad | http://(unparsable)",
      })
  void urisLoseTheirSecrets(String uri, String shown) {
    assertThat(Redaction.uri(uri)).isEqualTo(shown);
  }

  @Test
  void wordsAreKeptTokensAreNot() {
    assertThat(Redaction.looksLikeWord("events")).isTrue();
    assertThat(Redaction.looksLikeWord("v2")).isTrue();
    assertThat(Redaction.looksLikeWord("Hooks")).isTrue();
    assertThat(Redaction.looksLikeWord("webhook_in-2024")).isFalse(); // 4 digits
    assertThat(Redaction.looksLikeWord("aBcDeFgH")).isFalse(); // mixed case, 8+
    assertThat(Redaction.looksLikeWord("x".repeat(33))).isFalse();
  }

  record Settings(String user, String password, int port, String token) {
    @Override
    public String toString() {
      return Redaction.record(this, Set.of("password", "token"));
    }
  }

  @Test
  void recordsHideTheirSecretsButShowWhetherTheyAreSet() {
    assertThat(new Settings("app", "hunter2", 5, "").toString())
        .isEqualTo("Settings[user=app, password=***, port=5, token=]")
        .doesNotContain("hunter2");
    assertThat(new Settings("app", null, 5, "t0k").toString())
        .isEqualTo("Settings[user=app, password=null, port=5, token=***]");
  }
}
