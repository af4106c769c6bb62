package io.activityservice.events.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RoutingMetricsTest {

  @Test
  void onlyRegisteredTypesGetTheirOwnTag() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Set<String> registered = Set.of("com.example.a", "com.example.b");
    RoutingMetrics metrics = new RoutingMetrics(meters, registered::contains);
    for (int i = 0; i < 300; i++) {
      metrics.received("random." + UUID.randomUUID());
    }
    metrics.received("com.example.a");
    metrics.received("com.example.b");
    metrics.received("com.example.b");
    metrics.received(null);

    Set<String> tags =
        meters.find("activity.events.in").counters().stream()
            .map(c -> c.getId().getTag("type"))
            .collect(Collectors.toSet());
    assertThat(tags).containsExactlyInAnyOrder("com.example.a", "com.example.b", "other");
    assertThat(meters.get("activity.events.in").tag("type", "other").counter().count())
        .isEqualTo(301);
    Counter b = meters.get("activity.events.in").tag("type", "com.example.b").counter();
    assertThat(b.count()).isEqualTo(2);
  }
}
