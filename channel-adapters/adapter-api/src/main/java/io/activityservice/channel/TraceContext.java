package io.activityservice.channel;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The W3C Trace Context of an event's CloudEvents distributed-tracing extension ({@value
 * #TRACEPARENT}, {@value #TRACESTATE}) outside the event, where a transport has its own place for
 * it (webhook HTTP headers, SQS message attributes). Only a {@code traceparent} of W3C's shape and
 * a {@code tracestate} of printable characters (at most 512) leave or enter that way: a malformed
 * value must not make a request invalid, nor reach the event from a transport's metadata.
 */
public final class TraceContext {

  /** The extension and header name of the W3C trace parent. */
  public static final String TRACEPARENT = "traceparent";

  /** The extension and header name of the W3C trace state. */
  public static final String TRACESTATE = "tracestate";

  private static final Pattern TRACEPARENT_SHAPE =
      Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
  private static final Pattern TRACESTATE_SHAPE = Pattern.compile("[\\x20-\\x7e]{1,512}");

  private TraceContext() {}

  /**
   * The event's trace context as name → value ({@code traceparent}, and {@code tracestate} if it
   * has one of the right shape); empty when the event has no well-formed {@code traceparent}.
   */
  public static Map<String, String> of(CloudEvent event) {
    Object traceparent = event.getExtension(TRACEPARENT);
    if (traceparent == null || !isTraceparent(traceparent.toString())) {
      return Map.of();
    }
    Object tracestate = event.getExtension(TRACESTATE);
    if (tracestate == null || !isTracestate(tracestate.toString())) {
      return Map.of(TRACEPARENT, traceparent.toString());
    }
    return Map.of(TRACEPARENT, traceparent.toString(), TRACESTATE, tracestate.toString());
  }

  /**
   * The event with the trace context a transport carried beside it, when the event has none of its
   * own (a structured body's extension wins) and {@code traceparent} has W3C's shape; else the
   * event itself.
   */
  public static CloudEvent orFrom(CloudEvent event, String traceparent, String tracestate) {
    if (traceparent == null
        || event.getExtension(TRACEPARENT) != null
        || !isTraceparent(traceparent)) {
      return event;
    }
    CloudEventBuilder builder =
        CloudEventBuilder.from(event).withExtension(TRACEPARENT, traceparent);
    if (tracestate != null && isTracestate(tracestate)) {
      builder.withExtension(TRACESTATE, tracestate);
    }
    return builder.build();
  }

  static boolean isTraceparent(String value) {
    return TRACEPARENT_SHAPE.matcher(value).matches();
  }

  static boolean isTracestate(String value) {
    return TRACESTATE_SHAPE.matcher(value).matches();
  }
}
