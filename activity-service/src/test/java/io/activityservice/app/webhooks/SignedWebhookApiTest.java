package io.activityservice.app.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.WebhookReceiver;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * Standard Webhooks signing over real HTTP, verified with the official Standard Webhooks Java
 * library ({@code com.standardwebhooks:standardwebhooks}): the secret is shown once; {@code
 * webhook-id} is the CloudEvent id; a rotation's overlap signs with both secrets; a redriven dead
 * letter is signed with the secret in force when it is sent again.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"activity.delivery.poll-interval=200ms"})
class SignedWebhookApiTest extends WebhookApiTestBase {

  /** Creates a signed subscription of {@code type} to {@code path}; returns the create answer. */
  JsonNode signedSubscription(String type, String path, int maxAttempts) {
    Response created =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "%s", "pattern": {"type": ["%s"]}, "target": "%s",
             "signing": {"scheme": "standard-webhooks"},
             "retry": {"maxAttempts": %d, "initialBackoff": "PT0.1S", "maxBackoff": "PT0.2S"}}"""
                .formatted(unique("signed"), type, receiver.url(path), maxAttempts));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json();
  }

  void publish(String id, String type) {
    Response r =
        api.publish(
            """
            {"specversion": "1.0", "id": "%s", "source": "/tests/signing", "type": "%s",
             "data": {"greeting": "hé ✓"}}"""
                .formatted(id, type));
    assertThat(r.status()).as(r.body()).isIn(200, 202);
  }

  WebhookReceiver.Call received(String path, String eventId) {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> receiver.calls(path).stream().anyMatch(c -> c.body().contains(eventId)));
    return receiver.calls(path).stream()
        .filter(c -> c.body().contains(eventId))
        .findFirst()
        .orElseThrow();
  }

  static void verify(String secret, WebhookReceiver.Call call) throws Exception {
    new Webhook(secret).verify(call.body(), call.headers());
  }

  @Test
  void deliveriesVerifyWithTheStandardWebhooksLibraryAndTheSecretIsShownOnce() throws Exception {
    String type = unique("com.example.signed");
    String path = "/" + unique("hook");
    JsonNode created = signedSubscription(type, path, 3);
    String secret = created.get("secret").asText();
    assertThat(secret).startsWith("whsec_");
    assertThat(java.util.Base64.getDecoder().decode(secret.substring(6))).hasSize(32);
    assertThat(created.get("signing").get("scheme").asText()).isEqualTo("standard-webhooks");
    String id = created.get("id").asText();

    Response again = api.get("/api/v1/subscriptions/" + id);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.body()).doesNotContain(secret).doesNotContain("\"secret\"");
    assertThat(api.get("/api/v1/subscriptions").body()).doesNotContain(secret);

    String eventId = unique("evt");
    publish(eventId, type);
    WebhookReceiver.Call call = received(path, eventId);
    assertThat(call.header("webhook-id")).isEqualTo(eventId);
    long ts = Long.parseLong(call.header("webhook-timestamp"));
    assertThat(Math.abs(ts - System.currentTimeMillis() / 1000)).isLessThan(60);
    assertThat(call.header("webhook-signature")).startsWith("v1,").doesNotContain(" ");
    verify(secret, call);

    // A signature over other bytes, or with another secret, does not verify.
    assertThatThrownBy(() -> new Webhook(secret).verify(call.body() + " ", call.headers()))
        .isInstanceOf(WebhookVerificationException.class);
    String other =
        api.postJson("/api/v1/subscriptions/" + id + "/signing-secrets", "{}")
            .json()
            .get("secret")
            .asText();
    assertThat(other).startsWith("whsec_").isNotEqualTo(secret);
    assertThatThrownBy(() -> verify(other, call)).isInstanceOf(WebhookVerificationException.class);
    assertThat(api.get("/api/v1/subscriptions/" + id).body()).doesNotContain(other);
  }

  @Test
  void duringARotationsOverlapBothSecretsSignThenOnlyTheNewOne() throws Exception {
    String type = unique("com.example.rotated");
    String path = "/" + unique("hook");
    JsonNode created = signedSubscription(type, path, 3);
    String first = created.get("secret").asText();
    String id = created.get("id").asText();

    Response rotated =
        api.postJson("/api/v1/subscriptions/" + id + "/signing-secrets", "{\"overlap\": \"PT1H\"}");
    assertThat(rotated.status()).as(rotated.body()).isEqualTo(201);
    String second = rotated.json().get("secret").asText();
    assertThat(second).startsWith("whsec_").isNotEqualTo(first);
    assertThat(rotated.json().get("previousSecretsExpireAt").asText()).isNotBlank();

    String during = unique("evt");
    publish(during, type);
    WebhookReceiver.Call overlap = received(path, during);
    assertThat(overlap.header("webhook-signature").split(" ")).hasSize(2);
    verify(first, overlap);
    verify(second, overlap);

    // Ending the overlap at once: the first secret no longer signs.
    Response third =
        api.postJson("/api/v1/subscriptions/" + id + "/signing-secrets", "{\"overlap\": \"PT0S\"}");
    assertThat(third.status()).isEqualTo(201);
    String latest = third.json().get("secret").asText();
    String after = unique("evt");
    publish(after, type);
    WebhookReceiver.Call single = received(path, after);
    assertThat(single.header("webhook-signature").split(" ")).hasSize(1);
    verify(latest, single);
    assertThatThrownBy(() -> verify(first, single))
        .isInstanceOf(WebhookVerificationException.class);
    assertThatThrownBy(() -> verify(second, single))
        .isInstanceOf(WebhookVerificationException.class);
  }

  @Test
  void aRedrivenDeadLetterIsSignedWithTheCurrentSecret() throws Exception {
    String type = unique("com.example.redriven");
    String path = "/" + unique("hook");
    JsonNode created = signedSubscription(type, path, 1);
    String old = created.get("secret").asText();
    String id = created.get("id").asText();

    receiver.failNext(path, 1);
    String eventId = unique("evt");
    publish(eventId, type);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                api.get("/api/v1/dead-letters?subscription=" + id).json().get("items").size() == 1);
    String deadLetters = api.get("/api/v1/dead-letters?subscription=" + id).body();
    assertThat(deadLetters).contains(eventId).doesNotContain(old);

    String current =
        api.postJson("/api/v1/subscriptions/" + id + "/signing-secrets", "{\"overlap\": \"PT0S\"}")
            .json()
            .get("secret")
            .asText();
    Response redriven =
        api.postJson("/api/v1/dead-letters/redrive", "{\"subscription\": \"" + id + "\"}");
    assertThat(redriven.status()).as(redriven.body()).isEqualTo(200);
    assertThat(redriven.json().get("redriven").asInt()).isEqualTo(1);

    WebhookReceiver.Call call = received(path, eventId);
    assertThat(call.header("webhook-id")).isEqualTo(eventId);
    verify(current, call);
    assertThatThrownBy(() -> verify(old, call)).isInstanceOf(WebhookVerificationException.class);
  }

  @Test
  void signingIsForWebhookTargetsAndRotationForSignedSubscriptions() {
    Response queue =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "q", "pattern": {"type": ["x"]}, "target": "jms:queue:%s",
             "signing": {"scheme": "standard-webhooks"}}"""
                .formatted(unique("q")));
    assertThat(queue.status()).isEqualTo(400);
    assertThat(queue.json().get("field").asText()).isEqualTo("signing");

    Response scheme =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "s", "pattern": {"type": ["x"]}, "target": "%s",
             "signing": {"scheme": "hmac-md5"}}"""
                .formatted(receiver.url("/x")));
    assertThat(scheme.status()).isEqualTo(400);
    assertThat(scheme.json().get("field").asText()).isEqualTo("signing.scheme");

    Response plain =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "p", "pattern": {"type": ["x"]}, "target": "%s"}"""
                .formatted(receiver.url("/plain")));
    assertThat(plain.status()).isEqualTo(201);
    assertThat(plain.json().has("secret")).isFalse();
    String id = plain.json().get("id").asText();
    Response rotate = api.postJson("/api/v1/subscriptions/" + id + "/signing-secrets", "{}");
    assertThat(rotate.status()).isEqualTo(409);

    JsonNode signed = signedSubscription(unique("t"), "/o", 1);
    Response badOverlap =
        api.postJson(
            "/api/v1/subscriptions/" + signed.get("id").asText() + "/signing-secrets",
            "{\"overlap\": \"P90D\"}");
    assertThat(badOverlap.status()).isEqualTo(400);
    assertThat(badOverlap.json().get("field").asText()).isEqualTo("overlap");
    assertThat(List.of(badOverlap.body())).noneMatch(b -> b.contains("whsec_"));
  }
}
