package io.activityservice.app.webhooks;

import io.activityservice.app.support.Api;
import io.activityservice.app.support.WebhookReceiver;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What the webhook API tests share: a real HTTP receiver and a client of the service on its random
 * port. Each test uses its own paths and types ({@link #unique}), so the classes share one
 * receiver; it is daemon-threaded and dies with the JVM.
 */
abstract class WebhookApiTestBase {

  static final WebhookReceiver receiver = new WebhookReceiver();

  @LocalServerPort int port;
  Api api;

  @BeforeEach
  void client() {
    api = new Api(port);
  }

  /** {@code prefix} with a random suffix: a name no other test uses. */
  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
