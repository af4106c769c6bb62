package io.activityservice.events.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The OpenTelemetry side of the tracing seam, with the SDK's in-memory exporter. */
class OpenTelemetryTracingTest {

  static final String PRODUCER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String PRODUCER_SPAN = "00f067aa0ba902b7";
  static final String TRACEPARENT = "00-" + PRODUCER_TRACE + "-" + PRODUCER_SPAN + "-01";

  final InMemorySpanExporter spans = InMemorySpanExporter.create();

  EventTracing tracing(Sampler sampler) {
    return new OpenTelemetryTracing(
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .setSampler(sampler)
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build());
  }

  static CloudEvent event(String traceparent) {
    CloudEventBuilder b =
        CloudEventBuilder.v1()
            .withId("e1")
            .withSource(URI.create("/test"))
            .withType("com.example.t")
            .withExtension(OutboundEvent.PARTITION_KEY_EXTENSION, "k1");
    if (traceparent != null) {
      b.withExtension(EventTracing.TRACEPARENT, traceparent).withExtension("tracestate", "v=1");
    }
    return b.build();
  }

  static String[] parts(Object traceparent) {
    return traceparent.toString().split("-");
  }

  @Test
  void aDeliveryContinuesTheProducersTraceAndTheTargetReceivesTheDeliverySpansContext() {
    EventTracing tracing = tracing(Sampler.parentBased(Sampler.alwaysOff()));
    CloudEvent event = event(TRACEPARENT);
    EventTracing.Hop received =
        tracing.received(event, tracing.inbound(ChannelUri.parse("jms:queue:orders")));
    assertThat(received.recording()).as("the producer sampled it").isTrue();
    assertThat(tracing.startingTrace(received, event)).as("kept as it came").isSameAs(event);

    EventTracing.Hop delivery =
        tracing.deliver(received, event, tracing.outbound(ChannelUri.parse("sqs:out")), "sub-1", 1);
    OutboundEvent sent = tracing.continued(delivery, OutboundEvent.of(event));
    delivery.end(null);
    received.end(null);

    SpanData send = spans.getFinishedSpanItems().get(0);
    SpanData process = spans.getFinishedSpanItems().get(1);
    assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(process.getName()).isEqualTo("process queue:orders");
    assertThat(process.getTraceId()).isEqualTo(PRODUCER_TRACE);
    assertThat(process.getParentSpanId()).isEqualTo(PRODUCER_SPAN);
    assertThat(process.getAttributes().asMap().toString())
        .contains("messaging.system=activemq", "messaging.operation.type=process")
        .contains("cloudevents.event_id=e1", "cloudevents.event_type=com.example.t");
    assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(send.getParentSpanId()).isEqualTo(process.getSpanId());
    assertThat(send.getAttributes().asMap().toString())
        .contains("messaging.system=aws_sqs", "activity.subscription=sub-1");

    String[] tp = parts(sent.event().getExtension(EventTracing.TRACEPARENT));
    assertThat(tp[1]).isEqualTo(PRODUCER_TRACE);
    assertThat(tp[2]).isEqualTo(send.getSpanId());
    assertThat(tp[3]).isEqualTo("01");
    assertThat(sent.event().getExtension("tracestate")).isEqualTo("v=1");
    assertThat(sent.partitionKey()).isEqualTo("k1");
    assertThat(sent.event().getId()).isEqualTo("e1");
  }

  @Test
  void anUnsampledEventStartsNoSpansAndGoesOutWithTheTraceparentItCameWith() {
    EventTracing tracing = tracing(Sampler.parentBased(Sampler.alwaysOn()));
    CloudEvent unsampled = event("00-" + PRODUCER_TRACE + "-" + PRODUCER_SPAN + "-00");
    EventTracing.Hop received =
        tracing.received(unsampled, tracing.inbound(ChannelUri.parse("kafka:in")));
    assertThat(received).isSameAs(EventTracing.Hop.NONE);
    EventTracing.Hop delivery =
        tracing.deliver(
            received, unsampled, tracing.outbound(ChannelUri.parse("kafka:out")), "s", 1);
    assertThat(delivery).isSameAs(EventTracing.Hop.NONE);
    OutboundEvent out = OutboundEvent.of(unsampled);
    assertThat(tracing.continued(delivery, out)).isSameAs(out);
    assertThat(tracing.step(received, "route")).isSameAs(EventTracing.Hop.NONE);
    assertThat(spans.getFinishedSpanItems()).isEmpty();
  }

  @Test
  void anEventWithoutTraceContextStartsATraceThatItCarriesOn() {
    EventTracing tracing = tracing(Sampler.alwaysOn());
    CloudEvent event = event(null);
    EventTracing.Hop received = tracing.received(event, tracing.inbound(null));
    CloudEvent stamped = tracing.startingTrace(received, event);
    received.end(null);
    SpanData span = spans.getFinishedSpanItems().get(0);
    assertThat(span.getName()).isEqualTo("process /api/v1/events");
    assertThat(span.getParentSpanContext().isValid()).isFalse();
    String[] tp = parts(stamped.getExtension(EventTracing.TRACEPARENT));
    assertThat(tp[1]).isEqualTo(span.getTraceId());
    assertThat(tp[2]).isEqualTo(span.getSpanId());
  }

  @Test
  void aRetryFromTheStoreIsAChildOfTheStoredEventsContext() {
    EventTracing tracing = tracing(Sampler.parentBased(Sampler.alwaysOff()));
    EventTracing.Hop retry =
        tracing.deliver(
            null, event(TRACEPARENT), tracing.outbound(ChannelUri.parse("sqs:out")), "s", 3);
    retry.end(new IllegalStateException("503"));
    SpanData span = spans.getFinishedSpanItems().get(0);
    assertThat(span.getParentSpanId()).isEqualTo(PRODUCER_SPAN);
    assertThat(span.getAttributes().asMap().toString()).contains("activity.delivery.attempt=3");
    assertThat(span.getStatus().getStatusCode().name()).isEqualTo("ERROR");
  }

  @Test
  void aDerivedEventLinksToEveryCauseAndIsAChildOfTheLast() {
    EventTracing tracing = tracing(Sampler.parentBased(Sampler.alwaysOff()));
    List<String> causes =
        Arrays.asList(
            "00-11111111111111111111111111111111-1111111111111111-01",
            "not a traceparent",
            null,
            "00-22222222222222222222222222222222-2222222222222222-01");
    CloudEvent derived = event(null);
    EventTracing.Hop hop = tracing.derived(derived, "detector:overload", causes);
    assertThat(tracing.startingTrace(hop, derived).getExtension(EventTracing.TRACEPARENT))
        .asString()
        .contains("22222222222222222222222222222222");
    hop.end(null);
    SpanData span = spans.getFinishedSpanItems().get(0);
    assertThat(span.getName()).isEqualTo("create com.example.t");
    assertThat(span.getParentSpanId()).isEqualTo("2222222222222222");
    assertThat(span.getLinks())
        .extracting(LinkData::getSpanContext)
        .extracting(c -> c.getSpanId())
        .containsExactly("1111111111111111", "2222222222222222");
    assertThat(span.getAttributes().asMap().toString())
        .contains("activity.derived.origin=detector:overload", "activity.derived.causes=4");
  }

  @Test
  void aReplayStartsANewTraceLinkedToTheOriginal() {
    EventTracing tracing = tracing(Sampler.alwaysOn());
    EventTracing.Hop hop = tracing.replayed(event(TRACEPARENT), "r1");
    hop.end(null);
    SpanData span = spans.getFinishedSpanItems().get(0);
    assertThat(span.getName()).isEqualTo("replay r1");
    assertThat(span.getTraceId()).isNotEqualTo(PRODUCER_TRACE);
    assertThat(span.getParentSpanContext().isValid()).isFalse();
    assertThat(span.getLinks())
        .singleElement()
        .satisfies(l -> assertThat(l.getSpanContext().getSpanId()).isEqualTo(PRODUCER_SPAN));
  }

  @Test
  void webhookTargetsAreNamedWithoutTheirPathOrCredentials() {
    EventTracing tracing = tracing(Sampler.alwaysOn());
    EventTracing.Hop hop =
        tracing.deliver(
            null,
            event(TRACEPARENT),
            tracing.outbound(ChannelUri.parse("https://user:secret@hooks.example.com/t/token123")),
            "s",
            1);
    hop.end(null);
    String described = spans.getFinishedSpanItems().get(0).toString();
    assertThat(described).doesNotContain("secret", "token123");
  }

  @Test
  void noTracingPassesEverythingThrough() {
    EventTracing none = EventTracing.NONE;
    CloudEvent event = event(TRACEPARENT);
    EventTracing.Hop hop = none.received(event, none.inbound(null));
    assertThat(hop.recording()).isFalse();
    assertThat(none.startingTrace(hop, event)).isSameAs(event);
    OutboundEvent out = OutboundEvent.of(event);
    assertThat(none.continued(none.deliver(hop, event, none.outbound(null), "s", 1), out))
        .isSameAs(out);
  }
}
