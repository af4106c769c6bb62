package io.activityservice.events.definition;

import io.activityservice.events.cluster.PartitionKey;
import io.activityservice.events.cluster.ProcessorRouting;
import io.activityservice.events.model.RoutableEvent;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;

/**
 * Where a running definition gets its events from: on one node nothing to do (the router's tap
 * feeds every running definition); with several replicas, its internal channel ({@link
 * ProcessorRouting}), which also decides which replica owns which partition key.
 *
 * @param <D> the definition
 * @param <C> what the runtime prepared of it
 */
public interface Placement<D extends Definition, C> {

  void started(D definition, C prepared);

  void stopped(String name);

  /** One node: the router's tap feeds every running definition. */
  static <D extends Definition, C> Placement<D, C> local() {
    return new Placement<>() {
      @Override
      public void started(D definition, C prepared) {}

      @Override
      public void stopped(String name) {}
    };
  }

  /**
   * Several replicas: each running definition is a processor of {@code routing}, fed through its
   * internal channel.
   *
   * @param routing the replicas' processor routing, or {@code null} on one node ({@link #local()})
   * @param kind the kind of processor, e.g. {@code detector}
   * @param types the event types a definition consumes; empty for every type
   * @param submit hands one event to a running definition by name; false when it cannot take it now
   */
  static <D extends Definition, C> Placement<D, C> of(
      ProcessorRouting routing,
      String kind,
      BiFunction<D, C, Set<String>> types,
      BiPredicate<String, RoutableEvent> submit) {
    if (routing == null) {
      return local();
    }
    return new Placement<>() {
      @Override
      public void started(D definition, C prepared) {
        String name = definition.name();
        routing.register(
            new ProcessorRouting.Processor(
                kind,
                name,
                PartitionKey.parse(definition.partitionBy()),
                types.apply(definition, prepared),
                event -> submit.test(name, event)));
      }

      @Override
      public void stopped(String name) {
        routing.unregister(kind, name);
      }
    };
  }
}
