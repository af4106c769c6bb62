package io.activityservice.rules.action;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.rules.Event;
import io.activityservice.rules.TestEvents;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The webhook action's own logic behind its {@link WebhookPoster} port: which outcomes are retried,
 * how often, after which delays, and what a failure reports. The real guarded client (outbound
 * policy, redirects, restricted headers, a real HTTP server) is exercised where the application
 * plugs it in: {@code RulesWebhookActionTest} in activity-service.
 */
class WebhookRetryTest {

  final Event event = TestEvents.event("e1", "com.example.t", 1_000, "{\"value\": 1}");
  final ActionContext ctx = new ActionContext("rule", "r", event);
  final List<URI> posted = new CopyOnWriteArrayList<>();

  /** A poster whose attempts answer what {@code outcomes} gives, one per attempt. */
  WebhookPoster answering(Supplier<CompletableFuture<Integer>> outcomes) {
    return (target, contentType, body, headers, timeout) -> {
      if (headers.containsKey("Host")) {
        throw new IllegalArgumentException("header 'Host' may not be set on a webhook request");
      }
      return () -> {
        posted.add(target);
        return outcomes.get();
      };
    };
  }

  ActionResult run(WebhookPoster poster, Map<String, Object> params) throws Exception {
    return new WebhookAction(
            poster, Duration.ofSeconds(5), 3, Duration.ofMillis(1), Duration.ofMillis(5))
        .execute(params, ctx)
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  void backoffDoublesUpToTheCap() {
    WebhookAction webhook =
        new WebhookAction(
            null, Duration.ofSeconds(5), 3, Duration.ofMillis(20), Duration.ofMillis(100));
    assertThat(webhook.backoff(1)).isEqualTo(Duration.ofMillis(20));
    assertThat(webhook.backoff(2)).isEqualTo(Duration.ofMillis(40));
    assertThat(webhook.backoff(10)).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void serverErrorsAndTimeoutsAreRetriedUpToMaxAttempts() throws Exception {
    ActionResult busy =
        run(
            answering(() -> CompletableFuture.completedFuture(503)),
            Map.of("url", "http://a.example/h"));
    assertThat(busy).isEqualTo(ActionResult.failed(3, "HTTP 503 from http://a.example/h"));
    ActionResult slow =
        run(
            answering(() -> CompletableFuture.failedFuture(new HttpTimeoutException("slow"))),
            Map.of("url", "http://a.example/h", "timeout", "PT2S"));
    assertThat(slow).isEqualTo(ActionResult.failed(3, "timed out after PT2S"));
    assertThat(posted).hasSize(6);
  }

  @Test
  void aRefusedTargetFailsAtOnceWithTheGenericReason() throws Exception {
    ActionResult r =
        run(
            answering(
                () ->
                    CompletableFuture.failedFuture(
                        new WebhookPoster.Refused("target refused by the outbound policy", null))),
            Map.of("url", "http://10.0.0.1/h"));
    assertThat(r).isEqualTo(ActionResult.failed(1, "target refused by the outbound policy"));
  }

  @Test
  void aRequestThePosterRefusesOutrightIsNeverAttempted() throws Exception {
    ActionResult r =
        run(
            answering(() -> CompletableFuture.completedFuture(204)),
            Map.of("url", "http://a.example/h", "headers", Map.of("Host", "metadata")));
    assertThat(r)
        .isEqualTo(ActionResult.failed(0, "header 'Host' may not be set on a webhook request"));
    assertThat(posted).isEmpty();
  }

  @Test
  void withoutAPosterEveryExecutionFailsSayingWhy() throws Exception {
    ActionResult r = run(null, Map.of("url", "http://a.example/h"));
    assertThat(r.succeeded()).isFalse();
    assertThat(r.error()).contains("activity.channels.http.enabled=false");
  }
}
