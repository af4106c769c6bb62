package io.activityservice.app.web;

import io.activityservice.events.json.Json;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionService;
import java.net.URI;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Subscriptions: {@code /api/v1/subscriptions}. */
@RestController
@RequestMapping("/api/v1/subscriptions")
class SubscriptionController {

  /** Retry settings; omitted fields take the defaults (5 attempts, 100ms doubling to 5s, max age 5m). */
  record Retry(Integer maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxAge) {
    RetryPolicy toPolicy() {
      RetryPolicy d = RetryPolicy.DEFAULT;
      return new RetryPolicy(maxAttempts == null ? d.maxAttempts() : maxAttempts,
          initialBackoff == null ? d.initialBackoff() : initialBackoff,
          maxBackoff == null ? d.maxBackoff() : maxBackoff, maxAge == null ? d.maxAge() : maxAge);
    }

    static Retry of(RetryPolicy p) {
      return new Retry(p.maxAttempts(), p.initialBackoff(), p.maxBackoff(), p.maxAge());
    }
  }

  record SubscriptionRequest(String name, Object pattern, String filter, String target, Retry retry,
                             String deadLetter) {
  }

  record SubscriptionView(String id, String name, Object pattern, String filter, String target, Retry retry,
                          String deadLetter, OffsetDateTime createdAt) {
    static SubscriptionView of(Subscription s) {
      return new SubscriptionView(s.id(), s.name(), JsonViews.plain(s.pattern()), s.filter(), s.target(),
          Retry.of(s.retry()), s.deadLetter(), s.createdAt());
    }
  }

  private final SubscriptionService subscriptions;

  SubscriptionController(SubscriptionService subscriptions) {
    this.subscriptions = subscriptions;
  }

  @PostMapping
  ResponseEntity<SubscriptionView> create(@RequestBody SubscriptionRequest body) {
    Subscription s = subscriptions.create(body.name(), Json.tree(body.pattern()), body.filter(), body.target(),
        body.retry() == null ? null : body.retry().toPolicy(), body.deadLetter());
    return ResponseEntity.created(URI.create("/api/v1/subscriptions/" + s.id())).body(SubscriptionView.of(s));
  }

  @GetMapping
  List<SubscriptionView> list() {
    return subscriptions.list().stream().map(SubscriptionView::of).toList();
  }

  @GetMapping("/{id}")
  SubscriptionView get(@PathVariable String id) {
    return SubscriptionView.of(subscriptions.get(id));
  }

  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable String id) {
    subscriptions.delete(id);
  }
}
