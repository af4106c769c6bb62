package io.activityservice.app.web;

import io.activityservice.events.ingest.CloudEventParser;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.events.subscription.PatternLimits;
import io.activityservice.events.subscription.PatternTester;
import io.activityservice.events.subscription.SubscriptionService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/v1/patterns/test}: would a subscription with this pattern and filter receive
 * this event?
 */
@RestController
class PatternTestController {

  /**
   * What to test.
   *
   * @param pattern an Event Ruler pattern as a subscription's {@code pattern}; none: every event
   * @param filter a CESQL expression as a subscription's {@code filter}; none: no filter
   * @param event a structured-mode CloudEvent ({@code specversion}, {@code id}, {@code source},
   *     {@code type}, ...)
   */
  record PatternTestRequest(
      Object pattern,
      String filter,
      Object event,
      @Schema(
              description =
                  "A subscription's target: with it, the answer also shows what that subscription"
                      + " would deliver (delivery)")
          String target,
      SubscriptionController.TransformSpec transform,
      @Schema(allowableValues = {"structured", "binary", "data"}) String format) {}

  /**
   * What a subscription with the request's target, transform and format would send for the event,
   * byte for byte.
   *
   * @param headers the transport's headers or message properties as sent
   * @param body the body as sent (UTF-8 text; base64 when {@code bodyEncoding} is {@code base64})
   * @param bodyEncoding {@code text} or {@code base64}
   * @param error why the delivery would be dead-lettered instead (the transformation failed), or
   *     null; then there are no headers and no body
   */
  record DeliveryView(
      Map<String, String> headers,
      String body,
      @Schema(allowableValues = {"text", "base64"}) String bodyEncoding,
      String error) {}

  /**
   * A pattern field the event fails on its own: where, what the pattern wants, what the event has
   * (or null).
   */
  record MismatchView(String field, Object expected, Object actual) {}

  /**
   * The verdict.
   *
   * @param matches whether a subscription with this pattern and filter would receive the event
   * @param patternMatches whether the pattern matches
   * @param filterMatches whether the filter passes; null without a filter or when the pattern did
   *     not match
   * @param reason why, in one sentence, naming the fields that did not match
   * @param mismatches the pattern fields the event fails, each tested on its own
   */
  record PatternTestView(
      boolean matches,
      boolean patternMatches,
      Boolean filterMatches,
      String reason,
      List<MismatchView> mismatches,
      @Schema(description = "Only when the request names a target") DeliveryView delivery) {}

  private final EventIngest ingest;
  private final PatternLimits limits;
  private final SubscriptionService subscriptions;

  PatternTestController(EventIngest ingest, SubscriptionService subscriptions) {
    this.ingest = ingest;
    this.limits = subscriptions.limits();
    this.subscriptions = subscriptions;
  }

  @Operation(
      summary = "Test a pattern and filter against an event",
      description =
          """
      Matches with the routing code itself, so the answer is what a subscription with this pattern and filter \
      would do. The event is prepared as ingest prepares it (missing `time` filled in, `data` validated against its \
      registered schema), so an event ingest would refuse is a 400 naming `event.<field>`. For a non-match, \
      `reason` and `mismatches` name the pattern fields the event fails (each field is tested on its own) or say \
      that the filter is false or could not be evaluated. The pattern and filter are held to the bounds of a \
      subscription's (`activity.patterns.*`: sub-patterns after `$or` expansion, depth, wildcards, filter length, \
      nesting and operators), checked before anything is matched; a pattern beyond one is a 400 naming it. \
      Nothing here is scoped: the caller supplies the event. With a `target` (and optionally a `transform` and \
      `format`, as on a subscription), `delivery` shows what that subscription would send for the event: the \
      transport's headers or properties and the body, byte for byte, or the reason the delivery would be \
      dead-lettered (a transformation that fails on it). Nothing is sent.""")
  @PostMapping("/api/v1/patterns/test")
  PatternTestView test(@RequestBody PatternTestRequest body) {
    if (body == null || body.event() == null) {
      throw new InvalidInputException(
          "event",
          "is required: a structured-mode CloudEvent, e.g. {\"specversion\": "
              + "\"1.0\", \"id\": \"1\", \"source\": \"/meters/m1\", \"type\": \"com.example.meter.reading\", "
              + "\"data\": {...}}");
    }
    RoutableEvent event = prepare(body.event());
    PatternTester.Outcome o =
        PatternTester.test(Json.tree(body.pattern()), body.filter(), event, limits);
    DeliveryView delivery = null;
    if (body.target() != null || body.transform() != null || body.format() != null) {
      SubscriptionService.DeliveryPreview p =
          subscriptions.previewDelivery(
              body.target(),
              body.transform() == null ? null : body.transform().toTransform(),
              SubscriptionController.format(body.format()),
              event);
      delivery =
          new DeliveryView(
              p.headers(),
              p.body(),
              p.error() != null ? null : p.base64() ? "base64" : "text",
              p.error());
    }
    return new PatternTestView(
        o.matches(),
        o.patternMatches(),
        o.filterMatches(),
        o.reason(),
        o.mismatches().stream()
            .map(
                m ->
                    new MismatchView(
                        m.field(), JsonViews.plain(m.expected()), JsonViews.plain(m.actual())))
            .toList(),
        delivery);
  }

  private RoutableEvent prepare(Object event) {
    try {
      byte[] bytes = Json.write(Json.tree(event)).getBytes(StandardCharsets.UTF_8);
      return ingest.prepare(CloudEventParser.structured(bytes));
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          e.errors().stream()
              .map(
                  fe ->
                      new FieldError(
                          fe.field().equals("body") ? "event" : "event." + fe.field(), fe.reason()))
              .toList());
    }
  }
}
