package io.activityservice.events.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.secret.SecretCipher;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The signer against the Standard Webhooks reference vector (the one the official libraries test
 * with), two-secret signatures, the secret format, and the cipher secrets are stored with.
 */
class StandardWebhooksTest {

  @Test
  void signsTheReferenceVectorLikeTheOfficialLibraries() {
    byte[] key = StandardWebhooks.key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    String signature =
        StandardWebhooks.signature(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330L,
            "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8),
            List.of(key));
    assertThat(signature).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  }

  @Test
  void twoSecretsGiveTwoSpaceSeparatedSignaturesNewestFirst() {
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    byte[] a = StandardWebhooks.key(StandardWebhooks.newSecret());
    byte[] b = StandardWebhooks.key(StandardWebhooks.newSecret());
    String both = StandardWebhooks.signature("id", 1, body, List.of(a, b));
    assertThat(both.split(" "))
        .containsExactly(
            StandardWebhooks.signature("id", 1, body, List.of(a)),
            StandardWebhooks.signature("id", 1, body, List.of(b)));
    assertThatThrownBy(() -> StandardWebhooks.signature("id", 1, body, List.of()))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void secretsAreWhsecAndBase64Of32RandomBytes() {
    String s = StandardWebhooks.newSecret();
    assertThat(s).startsWith("whsec_").isNotEqualTo(StandardWebhooks.newSecret());
    assertThat(Base64.getDecoder().decode(s.substring(6))).hasSize(32);
    assertThatThrownBy(() -> StandardWebhooks.key("sk_nope"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theCipherRoundTripsOnlyForTheSameKeyAndOwner() {
    SecretCipher cipher = new SecretCipher(SecretCipher.newKey());
    String stored = cipher.encrypt("whsec_abc", "signing:s1");
    assertThat(stored).startsWith("v1:").doesNotContain("whsec_abc");
    assertThat(cipher.encrypt("whsec_abc", "signing:s1")).as("a fresh nonce").isNotEqualTo(stored);
    assertThat(cipher.decrypt(stored, "signing:s1")).isEqualTo("whsec_abc");
    assertThatThrownBy(() -> cipher.decrypt(stored, "signing:s2"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageNotContaining("whsec_abc");
    assertThatThrownBy(() -> new SecretCipher(SecretCipher.newKey()).decrypt(stored, "signing:s1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("activity.secrets.encryption-key");
    assertThatThrownBy(() -> new SecretCipher(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
