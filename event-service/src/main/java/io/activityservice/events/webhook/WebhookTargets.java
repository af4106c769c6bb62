package io.activityservice.events.webhook;

import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.SendOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Applies a webhook subscription's {@link TargetSettings} to each delivery attempt, first or retry,
 * on the event about to be sent: a Standard Webhooks signature with the secrets in force at that
 * moment (a redriven or retried delivery is signed anew, with the current secret), the credentials
 * of its connection, and its answer timeout. The signature covers the event's shared structured
 * encoding, the very bytes the webhook channel sends (encoded once, then one HMAC per secret).
 */
public final class WebhookTargets {

  private final SigningSecrets secrets;
  private final Connections connections;
  private final Clock clock;

  public WebhookTargets(SigningSecrets secrets, Connections connections, Clock clock) {
    this.secrets = secrets;
    this.connections = connections;
    this.clock = clock;
  }

  /** The signing secrets. */
  public SigningSecrets secrets() {
    return secrets;
  }

  /** The connections. */
  public Connections connections() {
    return connections;
  }

  /**
   * The event with the send options of one attempt for a subscription. Never throws; completes at
   * once unless an OAuth 2 token must be fetched first.
   */
  public CompletableFuture<OutboundEvent> prepare(
      String subscriptionId, TargetSettings settings, OutboundEvent event) {
    try {
      Duration timeout = settings.flow() == null ? null : settings.flow().timeout();
      Map<String, String> headers = new LinkedHashMap<>(4);
      if (settings.signed()) {
        List<byte[]> keys = secrets.keys(subscriptionId);
        if (keys.isEmpty()) {
          return CompletableFuture.failedFuture(
              new IllegalStateException(
                  "subscription " + subscriptionId + " is signed but has no signing secret"));
        }
        String id = event.event().getId();
        long timestamp = clock.millis() / 1000;
        headers.put(StandardWebhooks.ID, id);
        headers.put(StandardWebhooks.TIMESTAMP, Long.toString(timestamp));
        headers.put(
            StandardWebhooks.SIGNATURE,
            StandardWebhooks.signature(
                id, timestamp, event.encoded(CloudEventJson.STRUCTURED), keys));
      }
      if (settings.connection() == null) {
        return CompletableFuture.completedFuture(
            event.withOptions(new SendOptions(headers, timeout)));
      }
      return connections
          .headers(settings.connection())
          .thenApply(
              credentials -> {
                Map<String, String> all = new LinkedHashMap<>(credentials);
                all.putAll(headers);
                return event.withOptions(new SendOptions(all, timeout));
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
