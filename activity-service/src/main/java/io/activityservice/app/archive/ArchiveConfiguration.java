package io.activityservice.app.archive;

import io.activityservice.detector.DetectorEngine;
import io.activityservice.detector.DetectorService;
import io.activityservice.events.archive.ArchiveService;
import io.activityservice.events.archive.Replay;
import io.activityservice.events.archive.ReplayService;
import io.activityservice.events.archive.ReplayTarget;
import io.activityservice.events.cluster.ProcessorRouting;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.rules.engine.RuleEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Archives and replays are the Event Service's ({@code EventServiceAutoConfiguration}); the
 * application hands it their settings and the replay target (subscriptions, detectors and rule
 * sets, which the Event Service does not know).
 */
@Configuration(proxyBeanMethods = false)
public class ArchiveConfiguration {

  /** How long a replay waits for room in a detector's or rule set's queue before it fails. */
  private static final long PROCESSOR_WAIT_MILLIS = 60_000;

  /**
   * Archives' settings, handed to the Event Service ({@code EventServiceAutoConfiguration} builds
   * the archives).
   */
  @Bean
  ArchiveService.Settings archiveSettings(ArchiveProperties props) {
    return props.archiveSettings();
  }

  @Bean
  ReplayService.Settings replaySettings(ArchiveProperties props) {
    return props.replaySettings();
  }

  /**
   * Where replays go: subscriptions through the router, detectors and rule sets here or behind
   * internal channels.
   */
  @Bean
  ReplayTarget replayTarget(
      EventRouter router,
      DetectorEngine detectors,
      RuleEngine rules,
      ObjectProvider<ProcessorRouting> cluster) {
    return (event, d) -> replay(event, d, router, detectors, rules, cluster.getIfAvailable());
  }

  private static CompletableFuture<Void> replay(
      RoutableEvent event,
      Replay.Destinations d,
      EventRouter router,
      DetectorEngine detectors,
      RuleEngine rules,
      ProcessorRouting cluster) {
    List<CompletableFuture<?>> parts = new ArrayList<>(3);
    // Detectors and rule sets first, in the runner's (event-time) order.
    if (cluster != null) {
      Predicate<ProcessorRouting.Processor> chosen =
          p ->
              p.kind().equals(DetectorService.KIND)
                  ? allowed(d.detectors(), p.name())
                  : allowed(d.rules(), p.name());
      parts.add(cluster.forward(event, chosen));
    } else {
      String type = event.event().getType();
      for (String name : detectors.consumersOf(type)) {
        if (allowed(d.detectors(), name) && !offer(() -> detectors.submitTo(name, event))) {
          return busy("detector " + name);
        }
      }
      for (String name : rules.ruleSetsFor(type)) {
        if (allowed(d.rules(), name) && !offer(() -> rules.submitTo(name, event))) {
          return busy("rule set " + name);
        }
      }
    }
    if (d.subscriptions() == null || !d.subscriptions().isEmpty()) {
      parts.add(
          router.replay(event, d.subscriptions() == null ? null : Set.copyOf(d.subscriptions())));
    }
    return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
  }

  private static boolean allowed(List<String> names, String name) {
    return names == null || names.contains(name);
  }

  /**
   * Offers to a bounded queue, waiting for room (the replay runner's own thread may wait; live
   * traffic does not).
   */
  private static boolean offer(java.util.function.BooleanSupplier submit) {
    long deadline = System.currentTimeMillis() + PROCESSOR_WAIT_MILLIS;
    while (!submit.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        return false;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  private static CompletableFuture<Void> busy(String what) {
    return CompletableFuture.failedFuture(
        new RejectedExecutionException(
            what
                + " had no room for the replayed event"
                + " for "
                + PROCESSOR_WAIT_MILLIS / 1000
                + " s"));
  }
}
