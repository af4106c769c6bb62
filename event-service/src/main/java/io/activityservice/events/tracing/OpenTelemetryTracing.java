package io.activityservice.events.tracing;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.Redaction;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;

/**
 * {@link EventTracing} with OpenTelemetry spans, following the messaging semantic conventions
 * ({@code messaging.system}, {@code messaging.destination.name}, {@code messaging.operation.type})
 * and the CloudEvents ones ({@code cloudevents.event_id}, {@code cloudevents.event_type}): a
 * consumer span per received event, producer spans per delivery attempt, linked spans for derived
 * and replayed events. The trace context is read from and written to the event's {@value
 * EventTracing#TRACEPARENT} / {@value EventTracing#TRACESTATE} extensions with the W3C Trace
 * Context propagator, whatever propagators the application configured (the extension is W3C by
 * definition). Spans that the sampler drops are given up at once ({@link Hop#NONE}), so an
 * unsampled event costs one span start.
 */
public final class OpenTelemetryTracing implements EventTracing {

  /** The instrumentation scope of the spans. */
  public static final String SCOPE = "io.activityservice.events";

  static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  static final AttributeKey<String> OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  static final AttributeKey<String> EVENT_ID = AttributeKey.stringKey("cloudevents.event_id");
  static final AttributeKey<String> EVENT_TYPE = AttributeKey.stringKey("cloudevents.event_type");
  static final AttributeKey<String> EVENT_SOURCE =
      AttributeKey.stringKey("cloudevents.event_source");
  static final AttributeKey<String> EVENT_SUBJECT =
      AttributeKey.stringKey("cloudevents.event_subject");
  static final AttributeKey<String> SUBSCRIPTION = AttributeKey.stringKey("activity.subscription");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("activity.delivery.attempt");
  static final AttributeKey<Long> MATCHED = AttributeKey.longKey("activity.routing.matched");
  static final AttributeKey<List<String>> MATCHED_IDS =
      AttributeKey.stringArrayKey("activity.routing.subscriptions");
  static final AttributeKey<String> ORIGIN = AttributeKey.stringKey("activity.derived.origin");
  static final AttributeKey<Long> CAUSES = AttributeKey.longKey("activity.derived.causes");
  static final AttributeKey<String> REPLAY = AttributeKey.stringKey("activity.replay.name");

  /** Bound on the subscription ids put on a route span. */
  static final int MAX_MATCHED_IDS = 32;

  private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();

  private static final TextMapGetter<CloudEvent> EXTENSIONS =
      new TextMapGetter<>() {
        @Override
        public String get(CloudEvent event, String key) {
          Object value = event == null ? null : event.getExtension(key);
          return value == null ? null : value.toString();
        }
      };

  private final Tracer tracer;

  public OpenTelemetryTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer(SCOPE);
  }

  /** A channel's span name and constant attributes. */
  record Channel(String spanName, Attributes attributes) implements Destination {}

  @Override
  public Destination inbound(ChannelUri channel) {
    String system = channel == null ? "http" : system(channel);
    String name = channel == null ? "/api/v1/events" : destination(channel);
    return new Channel(
        "process " + name,
        Attributes.of(
            SYSTEM,
            system,
            DESTINATION,
            name,
            OPERATION_TYPE,
            "process",
            OPERATION_NAME,
            "process"));
  }

  @Override
  public Destination outbound(ChannelUri target) {
    String name = destination(target);
    return new Channel(
        "send " + name,
        Attributes.of(
            SYSTEM,
            system(target),
            DESTINATION,
            name,
            OPERATION_TYPE,
            "send",
            OPERATION_NAME,
            "send"));
  }

  /** The messaging system's name in the semantic conventions' words where they have one. */
  static String system(ChannelUri channel) {
    return switch (channel.scheme()) {
      case "jms" -> "activemq";
      case "sqs" -> "aws_sqs";
      case "kafka" -> "kafka";
      default -> channel.scheme();
    };
  }

  /** The destination without credentials (webhook URLs may carry them). */
  private static String destination(ChannelUri channel) {
    return channel.scheme().startsWith("http") ? Redaction.uri(channel) : channel.address();
  }

  @Override
  public Hop received(CloudEvent event, Destination from) {
    Channel channel = (Channel) from;
    Span span =
        tracer
            .spanBuilder(channel.spanName())
            .setSpanKind(SpanKind.CONSUMER)
            .setParent(parentOf(event))
            .startSpan();
    if (!span.isRecording()) {
      return Hop.NONE;
    }
    span.setAllAttributes(channel.attributes());
    describe(span, event);
    return new OtelHop(span);
  }

  @Override
  public Hop derived(CloudEvent event, String origin, List<String> causes) {
    SpanBuilder builder =
        tracer.spanBuilder("create " + event.getType()).setSpanKind(SpanKind.PRODUCER);
    Context parent = Context.root();
    int linked = 0;
    if (causes != null) {
      for (String cause : causes) {
        SpanContext context = spanContext(cause);
        if (context.isValid()) {
          builder.addLink(context);
          parent = Context.root().with(Span.wrap(context));
          linked++;
        }
      }
    }
    Span span = builder.setParent(parent).startSpan();
    if (!span.isRecording()) {
      return Hop.NONE;
    }
    span.setAttribute(OPERATION_TYPE, "create");
    span.setAttribute(ORIGIN, origin);
    span.setAttribute(CAUSES, (long) (causes == null ? 0 : causes.size()));
    span.setAttribute("activity.derived.linked", linked);
    describe(span, event);
    return new OtelHop(span);
  }

  @Override
  public Hop replayed(CloudEvent event, String replay) {
    SpanBuilder builder =
        tracer.spanBuilder("replay " + replay).setSpanKind(SpanKind.CONSUMER).setNoParent();
    Object traceparent = event.getExtension(TRACEPARENT);
    if (traceparent != null) {
      SpanContext original = spanContext(traceparent.toString());
      if (original.isValid()) {
        builder.addLink(original);
      }
    }
    Span span = builder.startSpan();
    if (!span.isRecording()) {
      return Hop.NONE;
    }
    span.setAttribute(REPLAY, replay);
    span.setAttribute(OPERATION_TYPE, "process");
    describe(span, event);
    return new OtelHop(span);
  }

  @Override
  public Hop step(Hop parent, String name) {
    if (!(parent instanceof OtelHop p)) {
      return Hop.NONE;
    }
    Span span =
        tracer.spanBuilder(name).setSpanKind(SpanKind.INTERNAL).setParent(p.context()).startSpan();
    return span.isRecording() ? new OtelHop(span) : Hop.NONE;
  }

  @Override
  public CloudEvent startingTrace(Hop hop, CloudEvent event) {
    if (!(hop instanceof OtelHop h) || event.getExtension(TRACEPARENT) != null) {
      return event;
    }
    return withContext(event, h);
  }

  @Override
  public void routed(Hop hop, int matched, List<String> subscriptionIds) {
    if (hop instanceof OtelHop h) {
      h.span.setAttribute(MATCHED, (long) matched);
      if (subscriptionIds != null && !subscriptionIds.isEmpty()) {
        h.span.setAttribute(
            MATCHED_IDS,
            subscriptionIds.size() <= MAX_MATCHED_IDS
                ? subscriptionIds
                : subscriptionIds.subList(0, MAX_MATCHED_IDS));
      }
    }
  }

  @Override
  public Hop deliver(
      Hop parent, CloudEvent event, Destination to, String subscriptionId, int attempt) {
    Context context;
    if (parent == null) {
      context = parentOf(event);
    } else if (parent instanceof OtelHop p) {
      context = p.context();
    } else {
      return Hop.NONE;
    }
    Channel channel = (Channel) to;
    Span span =
        tracer
            .spanBuilder(channel.spanName())
            .setSpanKind(SpanKind.PRODUCER)
            .setParent(context)
            .startSpan();
    if (!span.isRecording()) {
      return Hop.NONE;
    }
    span.setAllAttributes(channel.attributes());
    describe(span, event);
    if (subscriptionId != null) {
      span.setAttribute(SUBSCRIPTION, subscriptionId);
    }
    span.setAttribute(ATTEMPT, (long) attempt);
    return new OtelHop(span);
  }

  @Override
  public OutboundEvent continued(Hop delivery, OutboundEvent event) {
    if (!(delivery instanceof OtelHop h)) {
      return event;
    }
    return event.withEvent(withContext(event.event(), h));
  }

  /** The event with the hop's span as its trace context. */
  private static CloudEvent withContext(CloudEvent event, OtelHop hop) {
    CloudEventBuilder builder = CloudEventBuilder.from(event);
    W3C.inject(hop.context(), builder, (b, key, value) -> b.withExtension(key, value));
    return builder.build();
  }

  private static Context parentOf(CloudEvent event) {
    if (event.getExtension(TRACEPARENT) == null) {
      return Context.root();
    }
    return W3C.extract(Context.root(), event, EXTENSIONS);
  }

  private static SpanContext spanContext(String traceparent) {
    if (traceparent == null) {
      return SpanContext.getInvalid();
    }
    Context context =
        W3C.extract(
            Context.root(),
            traceparent,
            new TextMapGetter<String>() {
              @Override
              public String get(String carrier, String key) {
                return TRACEPARENT.equals(key) ? carrier : null;
              }
            });
    return Span.fromContext(context).getSpanContext();
  }

  private static void describe(Span span, CloudEvent event) {
    span.setAttribute(EVENT_ID, event.getId());
    span.setAttribute(MESSAGE_ID, event.getId());
    span.setAttribute(EVENT_TYPE, event.getType());
    if (event.getSource() != null) {
      span.setAttribute(EVENT_SOURCE, event.getSource().toString());
    }
    if (event.getSubject() != null) {
      span.setAttribute(EVENT_SUBJECT, event.getSubject());
    }
  }

  /** A recording span. */
  static final class OtelHop implements Hop {
    final Span span;

    OtelHop(Span span) {
      this.span = span;
    }

    Context context() {
      return Context.root().with(span);
    }

    @Override
    public boolean recording() {
      return true;
    }

    @Override
    public void note(String what) {
      span.addEvent(what);
    }

    @Override
    public void attribute(String key, String value) {
      span.setAttribute(key, value);
    }

    @Override
    public void attribute(String key, long value) {
      span.setAttribute(key, value);
    }

    @Override
    public void end(Throwable error) {
      if (error != null) {
        span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
        span.setAttribute("error.type", error.getClass().getName());
      }
      span.end();
    }
  }

  @Override
  public String toString() {
    return "OpenTelemetryTracing[" + tracer + "]";
  }
}
