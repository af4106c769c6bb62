package io.activityservice.perf.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class HopBreakdownTest {

  static final String BEFORE =
      """
      # HELP activity_hop_send_seconds Time from handing an event to the target channel
      # TYPE activity_hop_send_seconds summary
      activity_hop_send_seconds_count{channel="jms"} 10
      activity_hop_send_seconds_sum{channel="jms"} 0.05
      activity_hop_send_seconds_count{channel="sqs"} 5
      activity_hop_send_seconds_sum{channel="sqs"} 0.5
      activity_hop_route_seconds_count 15
      activity_hop_route_seconds_sum 0.0015
      activity_hop_route_seconds_max 0.001
      activity_events_in_total{type="x"} 15.0
      """;

  static final String AFTER =
      """
      activity_hop_send_seconds_count{channel="jms"} 110
      activity_hop_send_seconds_sum{channel="jms"} 0.25
      activity_hop_send_seconds_count{channel="sqs"} 5
      activity_hop_send_seconds_sum{channel="sqs"} 0.5
      activity_hop_route_seconds_count 115
      activity_hop_route_seconds_sum 0.0115
      activity_hop_parked_seconds_count{channel="http"} 0
      activity_hop_parked_seconds_sum{channel="http"} 0.0
      """;

  @Test
  void parsesCountAndSumPerHopSummedOverChannels() {
    Map<String, HopBreakdown.Timed> hops = HopBreakdown.parse(BEFORE);
    assertThat(hops.get("send")).isEqualTo(new HopBreakdown.Timed(15, 0.55));
    assertThat(hops.get("route").count()).isEqualTo(15);
    assertThat(hops).doesNotContainKey("transport");
  }

  @Test
  void aBurstIsTheDifferenceOfTwoScrapesAndHopsWithoutEventsAreLeftOut() {
    HopBreakdown b = new HopBreakdown();
    b.add("T1", HopBreakdown.parse(BEFORE), HopBreakdown.parse(AFTER));
    Map<String, Double> t1 = b.meansMillis().get("T1");
    assertThat(t1.get("send")).isCloseTo(2.0, within(1e-9)); // 0.2 s over 100 events
    assertThat(t1.get("route")).isCloseTo(0.1, within(1e-9));
    assertThat(t1).doesNotContainKeys("parked", "transport", "ingest");
  }

  @Test
  void anEmptyScrapeLeavesTheScenarioOut() {
    HopBreakdown b = new HopBreakdown();
    b.add("T2", Map.of(), HopBreakdown.parse(""));
    assertThat(b.meansMillis()).isEmpty();
  }
}
