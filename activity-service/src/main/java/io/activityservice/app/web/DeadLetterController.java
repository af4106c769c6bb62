package io.activityservice.app.web;

import io.activityservice.app.security.AuditLog;
import io.activityservice.app.security.Callers;
import io.activityservice.events.delivery.DeadLetterRecord;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.subscription.SubscriptionService;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Dead letters kept by the service: {@code GET /api/v1/dead-letters} (paged, oldest first) and
 * {@code POST /api/v1/dead-letters/redrive} (back into the subscription's retry cycle, like an SQS
 * dead-letter queue redrive). Admins see every dead letter; a subscriber those of its own
 * subscriptions.
 */
@RestController
@RequestMapping("/api/v1/dead-letters")
class DeadLetterController {

  /**
   * One dead letter.
   *
   * @param id its id (for redrive)
   * @param subscription the subscription it was for, or null (invalid inbound event, derivation
   *     loop)
   * @param origin where it failed (target without credentials, or inbound:/detector:/rule:)
   * @param attempts attempts made
   * @param reason why it was given up
   * @param receivedAt when the service received the event
   * @param deadLetteredAt when it was given up
   * @param event the event (structured-mode CloudEvent)
   */
  record DeadLetterView(
      String id,
      String subscription,
      String origin,
      int attempts,
      String reason,
      OffsetDateTime receivedAt,
      OffsetDateTime deadLetteredAt,
      Object event) {
    static DeadLetterView of(DeadLetterRecord r) {
      return new DeadLetterView(
          r.id(),
          r.subscriptionId(),
          r.origin(),
          r.attempts(),
          r.reason(),
          JsonViews.time(r.receivedAt()),
          JsonViews.time(r.deadLetteredAt()),
          JsonViews.plain(Json.parse(r.eventJson(), "event")));
    }
  }

  /** A page; pass {@code nextCursor} as {@code cursor} for the next one (null at the end). */
  record DeadLetterPageView(List<DeadLetterView> items, String nextCursor) {}

  /**
   * Which dead letters to redrive: a subscription's given ones, or its oldest (up to its
   * retry.maxPending).
   */
  record RedriveRequest(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = "\\S") String subscription,
      List<String> ids) {}

  record RedriveResponse(String subscription, int redriven, List<String> ids) {}

  private final DurableDelivery delivery;
  private final SubscriptionService subscriptions;

  DeadLetterController(DurableDelivery delivery, SubscriptionService subscriptions) {
    this.delivery = delivery;
    this.subscriptions = subscriptions;
  }

  /**
   * Admins list every dead letter; subscribers those of one of their subscriptions ({@code
   * subscription}).
   */
  @GetMapping
  DeadLetterPageView list(
      @RequestParam(required = false) String subscription,
      @RequestParam(required = false) String cursor,
      @Parameter(
              schema =
                  @Schema(type = "integer", minimum = "1", maximum = "1000", defaultValue = "100"))
          @RequestParam(defaultValue = "100")
          int limit) {
    if (!Callers.current().isAdmin()) {
      if (blankToNull(subscription) == null) {
        throw new ForbiddenException(
            "subscription",
            "only admins list every dead letter: pass"
                + " subscription=<id> of one of your subscriptions");
      }
      SubscriptionController.visible(subscriptions, subscription.trim());
    }
    DurableDelivery.DeadLetterPage page =
        delivery.deadLetterPage(blankToNull(subscription), cursor, limit);
    return new DeadLetterPageView(
        page.items().stream().map(DeadLetterView::of).toList(), page.nextCursor());
  }

  @PostMapping("/redrive")
  RedriveResponse redrive(@RequestBody RedriveRequest body) {
    if (body == null || body.subscription() == null || body.subscription().isBlank()) {
      throw new InvalidInputException(
          "subscription",
          "is required: the id of the subscription whose dead letters" + " to redrive");
    }
    AuditLog.resourceId(body.subscription().trim());
    if (!Callers.current().isAdmin()) {
      SubscriptionController.visible(subscriptions, body.subscription().trim());
    }
    List<String> moved = delivery.redrive(body.subscription().trim(), body.ids());
    return new RedriveResponse(body.subscription().trim(), moved.size(), moved);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
