package io.activityservice.events.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.PlainMessages;
import io.activityservice.channel.WirePreview;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.transform.CompiledTransform;
import io.activityservice.events.transform.OutputCheck;
import io.activityservice.events.transform.Transform;
import io.activityservice.events.transform.TransformException;
import io.activityservice.events.transform.TransformLimits;
import io.activityservice.events.webhook.TargetSettings;
import io.activityservice.events.webhook.WebhookTargets;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates, lists and deletes subscriptions. Everything is validated before anything is stored, and
 * a stored subscription is applied to routing at once.
 */
public class SubscriptionService {

  private static final Logger log = LoggerFactory.getLogger(SubscriptionService.class);

  private final SubscriptionRepository repository;
  private final SubscriptionIndex index;
  private final ChannelRegistry channels;
  private final Clock clock;
  private final Consumer<String> onDeleted;
  private final ConfigChanges changes;
  private final PatternLimits limits;
  private final TransformLimits transformLimits;
  private final OutputCheck outputCheck;

  /** Signing secrets and connections of webhook subscriptions; {@code null} for none. */
  private volatile WebhookTargets webhooks;

  /**
   * A created subscription and, for a signed one, its signing secret (to be shown once).
   *
   * @param secret the {@code whsec_…} secret, or {@code null} if unsigned
   */
  public record Created(Subscription subscription, String secret) {}

  public SubscriptionService(
      SubscriptionRepository repository,
      SubscriptionIndex index,
      ChannelRegistry channels,
      Clock clock) {
    this(repository, index, channels, clock, id -> {}, ConfigChanges.unrecorded());
  }

  /** With the default {@link PatternLimits}. */
  public SubscriptionService(
      SubscriptionRepository repository,
      SubscriptionIndex index,
      ChannelRegistry channels,
      Clock clock,
      Consumer<String> onDeleted,
      ConfigChanges changes) {
    this(repository, index, channels, clock, onDeleted, changes, PatternLimits.DEFAULT);
  }

  /**
   * @param onDeleted told the id of each deleted subscription (e.g. to drop its parked deliveries)
   * @param changes records each change so that every replica applies it ({@link #reload})
   * @param limits bounds on patterns and filters, checked when a subscription is created or loaded
   */
  public SubscriptionService(
      SubscriptionRepository repository,
      SubscriptionIndex index,
      ChannelRegistry channels,
      Clock clock,
      Consumer<String> onDeleted,
      ConfigChanges changes,
      PatternLimits limits) {
    this(repository, index, channels, clock, onDeleted, changes, limits, TransformLimits.DEFAULT);
  }

  /**
   * @param transformLimits bounds on each evaluation of a subscription's transformation
   */
  public SubscriptionService(
      SubscriptionRepository repository,
      SubscriptionIndex index,
      ChannelRegistry channels,
      Clock clock,
      Consumer<String> onDeleted,
      ConfigChanges changes,
      PatternLimits limits,
      TransformLimits transformLimits) {
    this(
        repository,
        index,
        channels,
        clock,
        onDeleted,
        changes,
        limits,
        transformLimits,
        OutputCheck.NONE);
  }

  /**
   * @param outputCheck checks each transformed event before it is delivered (e.g. {@link
   *     OutputCheck#againstSchemas})
   */
  public SubscriptionService(
      SubscriptionRepository repository,
      SubscriptionIndex index,
      ChannelRegistry channels,
      Clock clock,
      Consumer<String> onDeleted,
      ConfigChanges changes,
      PatternLimits limits,
      TransformLimits transformLimits,
      OutputCheck outputCheck) {
    this.outputCheck = outputCheck;
    this.transformLimits = transformLimits;
    this.repository = repository;
    this.limits = limits;
    this.index = index;
    this.channels = channels;
    this.clock = clock;
    this.onDeleted = onDeleted;
    this.changes = changes;
  }

  /** Lets subscriptions sign their deliveries and use connections (set once, at start-up). */
  public SubscriptionService webhooks(WebhookTargets webhooks) {
    this.webhooks = webhooks;
    return this;
  }

  /** Kind of the subscription changes in the configuration log. */
  public static final String CHANGE_KIND = "subscription";

  /**
   * Applies a change another replica made: indexes the stored subscription, or drops it from the
   * index if it is gone. Subscriptions are immutable, so one already indexed stays as it is.
   */
  public void reload(String id) {
    java.util.Optional<Subscription> stored = repository.find(id);
    if (stored.isEmpty()) {
      index.remove(id);
      return;
    }
    if (index.get(id) != null) {
      return;
    }
    try {
      index.add(compile(stored.get()));
    } catch (InvalidInputException e) {
      log.error(
          "subscription {} ({}) is not active on this replica: {}",
          LogSafe.text(id),
          LogSafe.text(stored.get().name()),
          LogSafe.text(e.getMessage(), 1024));
    }
  }

  /** Indexes every stored subscription; called once at start-up. */
  public void loadAll() {
    int loaded = 0;
    for (Subscription s : repository.findAll()) {
      try {
        index.add(compile(s));
        loaded++;
      } catch (InvalidInputException e) {
        // E.g. its adapter was disabled in configuration: keep it stored, report it, route the
        // rest.
        log.error(
            "subscription {} ({}) is not active: {}",
            LogSafe.text(s.id()),
            LogSafe.text(s.name()),
            LogSafe.text(e.getMessage(), 1024));
      }
    }
    log.info("{} subscriptions active", loaded);
  }

  /**
   * Validates and stores a subscription.
   *
   * @throws InvalidInputException naming the first offending field
   */
  public Subscription create(
      String name,
      JsonNode pattern,
      String filter,
      String target,
      RetryPolicy retry,
      String deadLetter) {
    return create(name, pattern, filter, target, retry, deadLetter, null);
  }

  /**
   * Validates and stores a subscription owned by {@code owner} (the identity that created it; may
   * be null).
   *
   * @throws InvalidInputException naming the first offending field
   */
  public Subscription create(
      String name,
      JsonNode pattern,
      String filter,
      String target,
      RetryPolicy retry,
      String deadLetter,
      String owner) {
    return create(name, pattern, filter, target, retry, deadLetter, owner, DeliveryOptions.NONE)
        .subscription();
  }

  /**
   * Validates and stores a subscription owned by {@code owner} that delivers as {@code options}
   * say; a signed one gets its first signing secret in the same transaction.
   *
   * @throws InvalidInputException naming the first offending field
   */
  public Created create(
      String name,
      JsonNode pattern,
      String filter,
      String target,
      RetryPolicy retry,
      String deadLetter,
      String owner,
      DeliveryOptions options) {
    TargetSettings webhook = options.webhook();
    Transform transform = options.transform();
    if (name == null || name.isBlank() || name.length() > 255) {
      throw new InvalidInputException("name", "is required (1-255 characters)");
    }
    String cleanFilter = filter == null || filter.isBlank() ? null : filter.trim();
    String cleanDeadLetter = deadLetter == null || deadLetter.isBlank() ? null : deadLetter.trim();
    Subscription s =
        new Subscription(
            UUID.randomUUID().toString(),
            name.trim(),
            pattern,
            cleanFilter,
            target,
            retry == null ? RetryPolicy.DEFAULT : retry,
            cleanDeadLetter,
            OffsetDateTime.now(clock),
            owner,
            new DeliveryOptions(
                webhook,
                transform == null || transform.isEmpty() ? null : transform,
                options.format(),
                options.ordering()));
    CompiledPattern compiled = compilePattern(pattern);
    SubscriptionIndex.Entry entry = compile(s);
    WebhookTargets w = webhooks;
    if (webhook != null) {
      if (w == null) {
        throw new InvalidInputException(
            webhook.signed() ? "signing" : webhook.connection() != null ? "connection" : "flow",
            "webhook settings are not available in this deployment");
      }
      if (webhook.connection() != null) {
        w.connections().requireUsable("connection", webhook.connection(), target.trim(), false);
      }
    }
    String[] secret = new String[1];
    Runnable insert =
        () -> {
          repository.insert(s);
          if (webhook != null && webhook.signed()) {
            secret[0] = w.secrets().create(s.id());
          }
        };
    if (compiled.wildcards() && owner != null) {
      synchronized (
          this) { // count and insert together, so concurrent creates cannot pass the bound on this
        // replica
        requireWildcardBudget(owner);
        changes.record(CHANGE_KIND, s.id(), insert);
      }
    } else {
      changes.record(CHANGE_KIND, s.id(), insert);
    }
    index.add(entry);
    return new Created(s, secret[0]);
  }

  /**
   * Checks and compiles a pattern within this service's {@link PatternLimits}, e.g. for a scope
   * check before {@link #create}.
   *
   * @throws InvalidInputException naming {@code pattern}
   */
  public CompiledPattern compilePattern(JsonNode pattern) {
    return CompiledPattern.compile(pattern, limits);
  }

  /** The bounds this service checks patterns and filters against. */
  public PatternLimits limits() {
    return limits;
  }

  /**
   * A tenant's wildcard subscriptions are bounded in number, so the matching cost one owner adds to
   * every event is bounded (count x per-pattern complexity x attribute length).
   */
  private void requireWildcardBudget(String owner) {
    long held =
        repository.findAll().stream()
            .filter(other -> owner.equals(other.owner()))
            .filter(
                other -> {
                  try {
                    return CompiledPattern.compile(other.pattern(), limits).wildcards();
                  } catch (InvalidInputException e) {
                    return false;
                  }
                })
            .count();
    if (held >= limits.maxWildcardSubscriptionsPerOwner()) {
      throw new InvalidInputException(
          "pattern",
          "uses wildcard matchers, and you hold "
              + held
              + " subscriptions with wildcards already; at most "
              + limits.maxWildcardSubscriptionsPerOwner()
              + " per owner (activity.patterns.max-wildcard-subscriptions-per-owner): delete one, or use prefix or"
              + " exact matchers");
    }
  }

  public List<Subscription> list() {
    return repository.findAll();
  }

  public Subscription get(String id) {
    return repository.find(id).orElseThrow(() -> new NotFoundException("subscription", id));
  }

  public void delete(String id) {
    changes.record(
        CHANGE_KIND,
        id,
        () -> {
          if (!repository.delete(id)) {
            throw new NotFoundException("subscription", id);
          }
          WebhookTargets w = webhooks;
          if (w != null) {
            w.secrets().delete(id);
            w.flow().forget(id);
          }
        });
    index.remove(id);
    onDeleted.accept(id);
  }

  private SubscriptionIndex.Entry compile(Subscription s) {
    compilePattern(s.pattern());
    CesqlFilter filter = s.filter() == null ? null : CesqlFilter.compile(s.filter(), limits);
    if (s.target() == null || s.target().isBlank()) {
      throw new InvalidInputException(
          "target", "is required: a channel URI such as https://host/hook or jms:queue:orders");
    }
    ChannelUri target = channels.parse("target", s.target());
    if (s.webhook() != null
        && !target.scheme().equals("http")
        && !target.scheme().equals("https")) {
      throw new InvalidInputException(
          s.webhook().signed()
              ? "signing"
              : s.webhook().connection() != null ? "connection" : "flow",
          "applies to webhook (http/https) targets only");
    }
    ChannelUri deadLetter =
        s.deadLetter() == null ? null : channels.parse("deadLetter", s.deadLetter());
    CompiledTransform transform =
        CompiledTransform.compile(s.transform(), transformLimits, outputCheck);
    requireFormat(target, s.format());
    return new SubscriptionIndex.Entry(s, filter, target, deadLetter, transform);
  }

  /**
   * What a subscription with this target, transformation and format would put on the wire for an
   * event, without sending it: the transport's headers and the body, byte for byte (as UTF-8 text,
   * or base64 when the body is not UTF-8). A transformation that fails on the event gives the
   * reason the delivery would be dead-lettered with.
   *
   * @throws InvalidInputException naming {@code target}, {@code transform.*} or {@code format}
   */
  public DeliveryPreview previewDelivery(
      String target, Transform transform, DeliveryFormat format, RoutableEvent event) {
    if (target == null || target.isBlank()) {
      throw new InvalidInputException(
          "target", "is required to preview a delivery: a channel URI such as jms:queue:orders");
    }
    ChannelUri uri = channels.parse("target", target);
    CompiledTransform compiled = CompiledTransform.compile(transform, transformLimits, outputCheck);
    requireFormat(uri, format);
    OutboundEvent out;
    try {
      out =
          compiled == null
              ? event.outbound().withFormat(format)
              : OutboundEvent.of(compiled.apply(event)).withFormat(format);
    } catch (TransformException e) {
      return new DeliveryPreview(
          Map.of(), null, false, "the subscription's transformation failed: " + e.getMessage());
    }
    WirePreview wire = channels.adapter(uri).preview(uri, out);
    boolean text = PlainMessages.isUtf8(wire.body());
    return new DeliveryPreview(
        wire.headers(),
        text
            ? new String(wire.body(), StandardCharsets.UTF_8)
            : Base64.getEncoder().encodeToString(wire.body()),
        !text,
        null);
  }

  /**
   * A delivery as it would be sent.
   *
   * @param headers the transport's headers or properties
   * @param body the body as text, or base64 when {@code base64}; null when {@code error} is set
   * @param base64 whether the body is base64 (it is not UTF-8 text)
   * @param error why the delivery would be dead-lettered instead, or null
   */
  public record DeliveryPreview(
      Map<String, String> headers, String body, boolean base64, String error) {}

  private void requireFormat(ChannelUri target, DeliveryFormat format) {
    if (format == null) {
      return;
    }
    Set<DeliveryFormat> formats = channels.adapter(target).formats();
    if (!formats.contains(format)) {
      throw new InvalidInputException(
          "format",
          "\""
              + format.wireName()
              + "\" is not offered by "
              + target.scheme()
              + " targets; they offer "
              + formats.stream()
                  .map(DeliveryFormat::wireName)
                  .sorted()
                  .collect(java.util.stream.Collectors.joining(", ")));
    }
  }

  /** The bounds on each evaluation of a transformation. */
  public TransformLimits transformLimits() {
    return transformLimits;
  }

  /**
   * Checks an event pattern (the subscription pattern language, also used by archives and {@link
   * PatternTester}) within the default {@link PatternLimits}; see {@link CompiledPattern#compile}.
   *
   * @throws InvalidInputException naming {@code pattern}
   */
  public static void checkPattern(JsonNode pattern) {
    CompiledPattern.compile(pattern, PatternLimits.DEFAULT);
  }
}
