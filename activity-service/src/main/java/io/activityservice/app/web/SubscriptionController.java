package io.activityservice.app.web;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.security.Caller;
import io.activityservice.app.security.Callers;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.subscription.DeliveryOptions;
import io.activityservice.events.subscription.Ordering;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionService;
import io.activityservice.events.transform.Transform;
import io.activityservice.events.webhook.FlowControl;
import io.activityservice.events.webhook.SigningSecrets;
import io.activityservice.events.webhook.TargetSettings;
import io.activityservice.events.webhook.WebhookTargets;
import io.swagger.v3.oas.annotations.media.Schema;
import java.net.URI;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
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

/**
 * Subscriptions: {@code /api/v1/subscriptions}. Each has an owner (who created it); subscribers see
 * and manage their own, admins all.
 */
@RestController
@RequestMapping("/api/v1/subscriptions")
class SubscriptionController {

  /**
   * Retry settings; omitted fields take the defaults (5 attempts, 100ms doubling to 5s, max age 5m,
   * 10000 pending). Bounds: maxAttempts 1-185, maxAge up to PT24H, maxPending 1-1000000.
   */
  record Retry(
      Integer maxAttempts,
      Duration initialBackoff,
      Duration maxBackoff,
      Duration maxAge,
      Integer maxPending) {
    RetryPolicy toPolicy() {
      RetryPolicy d = RetryPolicy.DEFAULT;
      return new RetryPolicy(
          maxAttempts == null ? d.maxAttempts() : maxAttempts,
          initialBackoff == null ? d.initialBackoff() : initialBackoff,
          maxBackoff == null ? d.maxBackoff() : maxBackoff,
          maxAge == null ? d.maxAge() : maxAge,
          maxPending == null ? d.maxPending() : maxPending);
    }

    static Retry of(RetryPolicy p) {
      return new Retry(
          p.maxAttempts(), p.initialBackoff(), p.maxBackoff(), p.maxAge(), p.maxPending());
    }
  }

  /**
   * Deliveries of a subscription waiting in the durable retry store, and its dead letters.
   *
   * @param pending deliveries waiting (for a retry, or to be handed to the dead-letter channel)
   * @param awaitingDeadLetterChannel of those, given up and waiting for the dead-letter channel
   * @param oldestPendingSince when the oldest waiting delivery was parked
   * @param oldestPendingAgeSeconds its age
   * @param nextAttemptAt when the next one is due
   * @param lastError the most recent failed attempt's error
   * @param lastAttemptAt when that attempt was made
   * @param deadLetters dead letters kept for this subscription (see /api/v1/dead-letters)
   * @param target the webhook target's flow control on this replica, or null without {@code flow}
   */
  record DeliveriesView(
      String subscription,
      long pending,
      long awaitingDeadLetterChannel,
      OffsetDateTime oldestPendingSince,
      Long oldestPendingAgeSeconds,
      OffsetDateTime nextAttemptAt,
      String lastError,
      OffsetDateTime lastAttemptAt,
      long deadLetters,
      TargetView target) {}

  /**
   * A webhook target's flow control as this replica sees it.
   *
   * @param circuit {@code closed}, {@code open}, {@code half-open}, or {@code none} without a
   *     breaker
   * @param ratePerSecond the subscription's rate limit (all replicas), or null
   * @param replicaShare this replica's share of it (the limit divided by the live replicas)
   * @param sentLastSecond requests this replica sent to the target in the last full second
   * @param deferred attempts held back by the rate limit or the open breaker since start
   * @param parked deliveries of the subscription waiting in the durable store
   * @param lastError the last failed request's error on this replica
   */
  record TargetView(
      String circuit,
      Double ratePerSecond,
      double replicaShare,
      long sentLastSecond,
      long deferred,
      long parked,
      String lastError) {}

  /**
   * Standard Webhooks signing of every delivery ({@code webhook-id}, {@code webhook-timestamp},
   * {@code webhook-signature}); webhook targets only.
   *
   * @param scheme {@code standard-webhooks}
   */
  record Signing(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, allowableValues = "standard-webhooks")
          String scheme) {}

  /**
   * The circuit breaker of a webhook target: after {@code failures} failed requests in a row its
   * deliveries are parked for {@code openFor}, then one probe request decides.
   *
   * @param failures consecutive failures that open it, 1-1000
   * @param openFor how long it stays open before a probe (PT0.1S-PT1H; default PT30S)
   */
  record CircuitBreaker(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minimum = "1", maximum = "1000")
          Integer failures,
      Duration openFor) {}

  /**
   * Flow control towards a webhook target.
   *
   * @param ratePerSecond most requests per second, all replicas together (0.01-100000)
   * @param burst requests that may go at once after a quiet period (1-100000; default one second's
   *     worth)
   * @param timeout time the target has to answer one request (PT0.1S-PT5M; default
   *     activity.channels.http.request-timeout)
   * @param circuitBreaker pauses the target after repeated failures
   */
  record Flow(
      @Schema(minimum = "0.01", maximum = "100000") Double ratePerSecond,
      @Schema(minimum = "1", maximum = "100000") Integer burst,
      Duration timeout,
      CircuitBreaker circuitBreaker) {

    TargetSettings.Flow toSettings() {
      return new TargetSettings.Flow(
          ratePerSecond,
          burst,
          timeout,
          circuitBreaker == null ? null : required(circuitBreaker.failures()),
          circuitBreaker == null ? null : circuitBreaker.openFor());
    }

    private static Integer required(Integer failures) {
      if (failures == null) {
        throw new InvalidInputException("flow.circuitBreaker.failures", "is required");
      }
      return failures;
    }

    static Flow of(TargetSettings.Flow f) {
      return f == null
          ? null
          : new Flow(
              f.ratePerSecond(),
              f.burst(),
              f.timeout(),
              f.hasBreaker() ? new CircuitBreaker(f.breakerFailures(), f.breakerOpenFor()) : null);
    }
  }

  /**
   * A new signing secret and when the ones it replaces stop signing.
   *
   * @param secret the new secret ({@code whsec_…}); shown this once only
   * @param previousSecretsExpireAt until then the previous secrets sign beside it
   */
  record SigningSecretView(String secret, OffsetDateTime previousSecretsExpireAt) {}

  /**
   * A rotation: the new secret signs at once; the current ones keep signing beside it for {@code
   * overlap} (PT0S-P30D; default PT0S).
   */
  record RotationRequest(Duration overlap) {}

  /**
   * A transformation: JSONata expressions over the whole event in structured-mode JSON (attributes,
   * extensions, {@code data}). {@code data} gives the delivered data (a string is sent as text,
   * anything else as JSON); each attribute expression gives that attribute's or extension's value
   * (none removes an optional one; {@code id} and {@code specversion} cannot be changed). Compiled
   * when the subscription is created: a syntax error is a 400 naming {@code transform.data} or
   * {@code transform.attributes.<name>} and the position. Each evaluation is bounded in time,
   * depth, memory and output ({@code activity.transforms.*}); one that fails dead-letters that
   * delivery with the reason. See docs/transformations.md.
   */
  record TransformSpec(
      @Schema(maxLength = 65536, example = "{'orderId': data.id, 'total': data.amount}")
          String data,
      @Schema(example = "{\"type\": \"'com.partner.order'\"}") Map<String, String> attributes) {
    Transform toTransform() {
      return new Transform(data, attributes);
    }

    static TransformSpec of(Transform t) {
      return t == null ? null : new TransformSpec(t.data(), t.attributes());
    }
  }

  /**
   * Ordering per key: the subscription's events of one key are delivered one at a time, in the
   * order the service accepted them; while one waits for a retry, the later ones of its key wait
   * behind it and the other keys go on, across replicas and restarts. An event may hold up its key
   * for at most {@code maxWait} (from its first attempt): past it, it is dead-lettered with that
   * reason and its key flows again. The key goes on the wire as the transport's group or partition
   * key (JMS {@code JMSXGroupID}, SQS FIFO message group, Kafka record key). See
   * docs/delivery-semantics.md.
   *
   * @param key a CloudEvents attribute or extension name ({@code subject}, {@code tenant}) or a
   *     path into the JSON data ({@code data.orderId}); events without a value share one key
   * @param maxWait how long one event may hold up its key (ISO-8601, positive, at most PT24H);
   *     default {@code retry.maxAge}
   */
  record OrderingSpec(
      @Schema(
              requiredMode = Schema.RequiredMode.REQUIRED,
              maxLength = 255,
              example = "data.orderId")
          String key,
      // Text, parsed here: a malformed duration is then a 400 naming ordering.maxWait.
      @Schema(format = "duration", example = "PT30S") String maxWait) {
    Ordering toOrdering(RetryPolicy retry) {
      Duration wait = null;
      if (maxWait != null && !maxWait.isBlank()) {
        try {
          wait = Duration.parse(maxWait.trim());
        } catch (java.time.format.DateTimeParseException e) {
          throw new InvalidInputException(
              "ordering.maxWait", "must be an ISO-8601 duration such as PT30S");
        }
      }
      return Ordering.of(key, wait, retry);
    }

    static OrderingSpec of(Ordering o) {
      return o == null ? null : new OrderingSpec(o.key().expression(), o.maxWait().toString());
    }
  }

  record SubscriptionRequest(
      @Schema(
              requiredMode = Schema.RequiredMode.REQUIRED,
              minLength = 1,
              maxLength = 255,
              pattern = "\\S")
          String name,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Object pattern,
      String filter,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String target,
      Retry retry,
      String deadLetter,
      Signing signing,
      @Schema(
              description =
                  "name of a connection (POST /api/v1/connections) you created; webhook targets only",
              maxLength = 64)
          String connection,
      Flow flow,
      TransformSpec transform,
      @Schema(
              description =
                  "How events go on the wire: structured (one application/cloudevents+json body),"
                      + " binary (data as the body, attributes as headers or properties), or data"
                      + " (the data alone with its content type, for consumers that do not read"
                      + " CloudEvents). Absent: the transport's default (structured for SQS and"
                      + " webhooks, binary for JMS and Kafka). A format the target's transport"
                      + " cannot send is a 400 naming format.",
              allowableValues = {"structured", "binary", "data"})
          String format,
      @Schema(
              description =
                  "Ordering per key: events of one key are delivered one at a time and in order;"
                      + " a failing one holds up only the later events of its key, for at most"
                      + " maxWait, then it is dead-lettered. Absent: no ordering (retries may"
                      + " reorder events).")
          OrderingSpec ordering) {

    TargetSettings webhook() {
      if (signing != null && signing.scheme() == null) {
        throw new InvalidInputException("signing.scheme", "is required: \"standard-webhooks\"");
      }
      return TargetSettings.orNull(
          signing == null ? null : signing.scheme(),
          connection,
          flow == null ? null : flow.toSettings());
    }
  }

  /**
   * A subscription; {@code owner} is the identity that created it ({@code key:<id>}, {@code
   * jwt:<subject>}). {@code secret} is present in the create answer of a signed subscription only:
   * it is shown once and never again.
   */
  record SubscriptionView(
      String id,
      String name,
      Object pattern,
      String filter,
      String target,
      Retry retry,
      String deadLetter,
      OffsetDateTime createdAt,
      String owner,
      Signing signing,
      String connection,
      Flow flow,
      @JsonInclude(JsonInclude.Include.NON_NULL)
          @Schema(description = "the signing secret (whsec_…): in the create answer only")
          String secret,
      TransformSpec transform,
      @Schema(allowableValues = {"structured", "binary", "data"}) String format,
      OrderingSpec ordering) {
    static SubscriptionView of(Subscription s) {
      return of(s, null);
    }

    static SubscriptionView of(Subscription s, String secret) {
      TargetSettings w = s.webhook();
      return new SubscriptionView(
          s.id(),
          s.name(),
          JsonViews.plain(s.pattern()),
          s.filter(),
          s.target(),
          Retry.of(s.retry()),
          s.deadLetter(),
          s.createdAt(),
          s.owner(),
          w == null || !w.signed() ? null : new Signing(w.signingScheme()),
          w == null ? null : w.connection(),
          w == null ? null : Flow.of(w.flow()),
          secret,
          TransformSpec.of(s.transform()),
          s.format() == null ? null : s.format().wireName(),
          OrderingSpec.of(s.ordering()));
    }
  }

  private final SubscriptionService subscriptions;
  private final DurableDelivery delivery;
  private final WebhookTargets webhooks;

  SubscriptionController(
      SubscriptionService subscriptions, DurableDelivery delivery, WebhookTargets webhooks) {
    this.subscriptions = subscriptions;
    this.delivery = delivery;
    this.webhooks = webhooks;
  }

  /**
   * Creates a subscription owned by the caller; a scoped caller's compiled pattern must pin {@code
   * type} to its scope in every {@code $or} branch.
   */
  @PostMapping
  @ResponseStatus(HttpStatus.CREATED) // documents the status; the ResponseEntity sets it
  ResponseEntity<SubscriptionView> create(@RequestBody SubscriptionRequest body) {
    Caller caller = Callers.current();
    JsonNode pattern = Json.tree(body.pattern());
    // Decided on the pattern as Event Ruler will run it: every $or branch (bounds checked first,
    // 400).
    caller.scope().requireSubscribable(subscriptions.compilePattern(pattern));
    TargetSettings webhook = body.webhook();
    if (webhook != null && webhook.connection() != null) {
      // Another owner's connection is answered like a missing one: its existence does not leak.
      boolean usable =
          webhooks
              .connections()
              .find(webhook.connection())
              .map(c -> caller.owns(c.owner()))
              .orElse(false);
      if (!usable) {
        throw new InvalidInputException(
            "connection", "no connection named '" + webhook.connection() + "'");
      }
    }
    RetryPolicy retry = body.retry() == null ? null : body.retry().toPolicy();
    SubscriptionService.Created created =
        subscriptions.create(
            body.name(),
            pattern,
            body.filter(),
            body.target(),
            retry,
            body.deadLetter(),
            caller.id(),
            new DeliveryOptions(
                webhook,
                body.transform() == null ? null : body.transform().toTransform(),
                format(body.format()),
                body.ordering() == null ? null : body.ordering().toOrdering(retry)));
    Subscription s = created.subscription();
    return ResponseEntity.created(URI.create("/api/v1/subscriptions/" + s.id()))
        .body(SubscriptionView.of(s, created.secret()));
  }

  /**
   * Rotates the signing secret of a signed subscription: the answer holds the new secret, once; the
   * previous secrets sign beside it until {@code previousSecretsExpireAt}.
   */
  @PostMapping("/{id}/signing-secrets")
  @ResponseStatus(HttpStatus.CREATED)
  SigningSecretView rotate(
      @PathVariable String id, @RequestBody(required = false) RotationRequest body) {
    Subscription s = visible(subscriptions, id);
    if (s.webhook() == null || !s.webhook().signed()) {
      throw new ConflictException(
          "signing",
          "the subscription is not signed; create one with \"signing\": {\"scheme\": \"standard-webhooks\"}");
    }
    SigningSecrets.Rotation r =
        webhooks.secrets().rotate(s.id(), body == null ? null : body.overlap());
    return new SigningSecretView(r.secret(), JsonViews.time(r.previousExpiresAt()));
  }

  /** The delivery format named in a request, or null for the transport's default. */
  static DeliveryFormat format(String name) {
    if (name == null || name.isBlank()) {
      return null;
    }
    try {
      return DeliveryFormat.parse(name);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("format", e.getMessage());
    }
  }

  /** Every subscription for admins, one's own for others. */
  @GetMapping
  List<SubscriptionView> list() {
    Caller caller = Callers.current();
    return subscriptions.list().stream()
        .filter(s -> caller.owns(s.owner()))
        .map(SubscriptionView::of)
        .toList();
  }

  @GetMapping("/{id}")
  SubscriptionView get(@PathVariable String id) {
    return SubscriptionView.of(visible(subscriptions, id));
  }

  @GetMapping("/{id}/deliveries")
  DeliveriesView deliveries(@PathVariable String id) {
    Subscription s = visible(subscriptions, id);
    DurableDelivery.SubscriptionDeliveries d = delivery.deliveries(id);
    Long age =
        d.oldestPendingSince() == null
            ? null
            : Math.max(0, (System.currentTimeMillis() - d.oldestPendingSince()) / 1000);
    return new DeliveriesView(
        id,
        d.pending(),
        d.awaitingDeadLetterChannel(),
        JsonViews.time(d.oldestPendingSince()),
        age,
        JsonViews.time(d.nextAttemptAt()),
        d.lastError(),
        JsonViews.time(d.lastAttemptAt()),
        d.deadLetters(),
        target(s, d.pending()));
  }

  private TargetView target(Subscription s, long parked) {
    if (s.webhook() == null || s.webhook().flow() == null) {
      return null;
    }
    FlowControl.TargetState t = webhooks.flow().state(s.id());
    if (t == null) {
      // No attempt yet on this replica.
      TargetSettings.Flow f = s.webhook().flow();
      return new TargetView(
          f.hasBreaker() ? "closed" : "none", f.ratePerSecond(), 0, 0, 0, parked, null);
    }
    return new TargetView(
        t.circuit(),
        t.ratePerSecond(),
        t.replicaShare(),
        t.sentLastSecond(),
        t.deferred(),
        parked,
        t.lastError());
  }

  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable String id) {
    visible(subscriptions, id);
    subscriptions.delete(id);
  }

  /**
   * The subscription if the caller may see it: admins every one, others their own. Another
   * subscriber's subscription is answered like a missing one (404), so its existence does not leak.
   */
  static Subscription visible(SubscriptionService subscriptions, String id) {
    Subscription s = subscriptions.get(id);
    if (!Callers.current().owns(s.owner())) {
      throw new NotFoundException("subscription", id);
    }
    return s;
  }
}
