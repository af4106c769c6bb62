package io.activityservice.events.webhook;

import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.SendOptions;
import io.activityservice.channel.support.Futures;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Applies a webhook subscription's {@link TargetSettings} to each delivery attempt, first or retry,
 * on the event about to be sent: a Standard Webhooks signature with the secrets in force at that
 * moment (a redriven or retried delivery is signed anew, with the current secret), the credentials
 * of its connection, and its answer timeout. The signature covers the event's shared structured
 * encoding, the very bytes the webhook channel sends (encoded once, then one HMAC per secret).
 */
public final class WebhookTargets implements AutoCloseable {

  private final SigningSecrets secrets;
  private final Connections connections;
  private final FlowControl flow;
  private final Clock clock;

  public WebhookTargets(
      SigningSecrets secrets, Connections connections, FlowControl flow, Clock clock) {
    this.secrets = secrets;
    this.connections = connections;
    this.flow = flow;
    this.clock = clock;
  }

  /** The targets' rate limiters and circuit breakers. */
  public FlowControl flow() {
    return flow;
  }

  /**
   * One attempt for a subscription: through its target's flow control (or {@link DeliveryDeferred}
   * at once), with its signature, credentials and timeout, sent by {@code send}. Never throws.
   */
  public CompletableFuture<Void> send(
      String subscriptionId,
      TargetSettings settings,
      OutboundEvent event,
      boolean reserved,
      Function<OutboundEvent, CompletableFuture<Void>> send) {
    FlowControl.Permit permit = null;
    if (settings.flow() != null) {
      try {
        permit = flow.acquire(subscriptionId, settings.flow(), reserved);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    CompletableFuture<Void> sent = prepare(subscriptionId, settings, event).thenCompose(send);
    if (permit != null) {
      FlowControl.Permit p = permit;
      sent.whenComplete(
          (ok, error) -> {
            Throwable cause = error == null ? null : Futures.unwrap(error);
            p.done(cause, cause == null ? null : describe(cause));
          });
    }
    return sent;
  }

  private static String describe(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
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
            StandardWebhooks.signature(id, timestamp, DeliveryFormat.httpBody(event), keys));
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

  /** Stops the flow control's thread; the connections are a bean of their own and close there. */
  @Override
  public void close() {
    flow.close();
  }
}
