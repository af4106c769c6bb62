package io.activityservice.events.definition;

import io.activityservice.channel.support.Futures;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.model.HopCount;
import io.activityservice.events.scope.TypeScope;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The events one kind of definition derives (detector rows, rule actions), on their way out through
 * the {@link DerivedEventEmitter}: who derives them ({@code detector:overload}, {@code
 * rule:shedding/publish}), the hop-count guard's bound and the setting that sets it, and the
 * author's scope. The modules build the events (from a row's columns, from an action's parameters)
 * and stamp their hop count with {@link #stamp}.
 */
public final class DerivedEvents {

  private final DerivedEventEmitter emitter;
  private final String originPrefix;
  private final int maxHops;
  private final String hopsSetting;

  /**
   * @param originPrefix what the origin of every producer starts with, e.g. {@code detector:}
   * @param maxHops the loop guard's bound: an event whose hop count exceeds it is dead-lettered
   * @param hopsSetting the property that sets the bound, named in the dead letter's reason
   */
  public DerivedEvents(
      DerivedEventEmitter emitter, String originPrefix, int maxHops, String hopsSetting) {
    this.emitter = emitter;
    this.originPrefix = originPrefix;
    this.maxHops = maxHops;
    this.hopsSetting = hopsSetting;
  }

  /**
   * Sets the hop count of an event derived from events whose largest hop count is {@code
   * inputHops}.
   */
  public static CloudEventBuilder stamp(CloudEventBuilder event, int inputHops) {
    return event.withExtension(HopCount.EXTENSION, inputHops + 1);
  }

  /**
   * The emitter's view of one producer, e.g. {@code origin} {@code overload} of a detector's
   * author's scope.
   */
  public DerivedEventEmitter.Producer producer(String origin, TypeScope scope) {
    return new DerivedEventEmitter.Producer(originPrefix + origin, maxHops, hopsSetting, scope);
  }

  /**
   * Guards, ingests and routes an event (see {@link DerivedEventEmitter#emit}); never throws. Fails
   * with {@link DerivedEventEmitter.NotEmitted} when the event was dead-lettered instead.
   */
  public CompletableFuture<?> emit(CloudEvent event, String origin, TypeScope scope) {
    return emitter.emit(event, producer(origin, scope));
  }

  /**
   * Like {@link #emit(CloudEvent, String, TypeScope)}, traced as derived from events whose {@code
   * traceparent}s are {@code causes} (its span links to each).
   */
  public CompletableFuture<?> emit(
      CloudEvent event, String origin, TypeScope scope, List<String> causes) {
    return emitter.emit(event, producer(origin, scope), causes);
  }

  /**
   * Null when the event may be emitted; else a future of dead-lettering it (see {@link
   * DerivedEventEmitter#guard}).
   */
  public CompletableFuture<Void> guard(CloudEvent event, String origin, TypeScope scope) {
    return emitter.guard(event, producer(origin, scope));
  }

  /** Dead-letters an event with the reason instead of emitting it. */
  public CompletableFuture<Void> refuse(
      CloudEvent event, String origin, TypeScope scope, String reason) {
    return emitter.refuse(event, producer(origin, scope), reason);
  }

  /** The failure behind a future's completion wrapper. */
  public static Throwable cause(Throwable error) {
    return Futures.unwrap(error);
  }

  /**
   * Whether a failed emit means the event was dead-lettered (loop guard, scope, refused by ingest).
   */
  public static boolean deadLettered(Throwable error) {
    return cause(error) instanceof DerivedEventEmitter.NotEmitted;
  }
}
