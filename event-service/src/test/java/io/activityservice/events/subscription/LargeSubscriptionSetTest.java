package io.activityservice.events.subscription;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.support.Events;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * 10,000 subscriptions with distinct patterns: every event must match exactly the expected set.
 * Match times are logged for information only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LargeSubscriptionSetTest {

  private static final Logger log = LoggerFactory.getLogger(LargeSubscriptionSetTest.class);
  private static final String READING = "com.example.meter.reading";
  private static final int METERS = 8_000;
  private static final int RANGES = 1_000; // value in [k*10, k*10+10)
  private static final int PREFIXES = 900; // data.site starts with "site-<k>/"
  private static final int TYPED = 99; // type = com.example.t<k>
  private static final int MATCH_ALL = 1;
  private static final int TOTAL = METERS + RANGES + PREFIXES + TYPED + MATCH_ALL;

  private final SubscriptionIndex index = new SubscriptionIndex();
  private final ChannelUri target = ChannelUri.parse("fake:sink");

  private void add(String id, String pattern) {
    Subscription s =
        new Subscription(
            id,
            id,
            pattern == null ? null : Json.parse(pattern, "pattern"),
            null,
            target.toString(),
            RetryPolicy.DEFAULT,
            null,
            OffsetDateTime.now());
    index.add(new SubscriptionIndex.Entry(s, null, target, null));
  }

  @BeforeAll
  void register() {
    long t0 = System.nanoTime();
    for (int i = 0; i < METERS; i++) {
      add("meter-" + i, "{\"data\": {\"meter\": [\"m-" + i + "\"]}}");
    }
    for (int k = 0; k < RANGES; k++) {
      add(
          "range-" + k,
          "{\"type\": [\""
              + READING
              + "\"], \"data\": {\"value\": [{\"numeric\": [\">=\", "
              + (k * 10)
              + ", \"<\", "
              + (k * 10 + 10)
              + "]}]}}");
    }
    for (int k = 0; k < PREFIXES; k++) {
      add("site-" + k, "{\"data\": {\"site\": [{\"prefix\": \"site-" + k + "/\"}]}}");
    }
    for (int k = 0; k < TYPED; k++) {
      add("type-" + k, "{\"type\": [\"com.example.t" + k + "\"]}");
    }
    add("all", null);
    log.info(
        "registered {} subscriptions in {} ms", index.size(), (System.nanoTime() - t0) / 1_000_000);
  }

  private Set<String> match(RoutableEvent e) {
    return index.match(e.event(), e.json()).stream()
        .map(en -> en.subscription().id())
        .collect(Collectors.toSet());
  }

  /** The expected matches, computed independently of Event Ruler. */
  private static Set<String> expected(String type, Map<String, Object> data) {
    Set<String> ids = new HashSet<>();
    ids.add("all");
    Object meter = data.get("meter");
    if (meter instanceof String m && m.startsWith("m-")) {
      int i = Integer.parseInt(m.substring(2));
      if (i < METERS) {
        ids.add("meter-" + i);
      }
    }
    if (READING.equals(type) && data.get("value") instanceof Number n) {
      double v = n.doubleValue();
      int k = (int) Math.floor(v / 10);
      if (v >= 0 && k < RANGES) {
        ids.add("range-" + k);
      }
    }
    if (data.get("site") instanceof String site) {
      for (int k = 0; k < PREFIXES; k++) {
        if (site.startsWith("site-" + k + "/")) {
          ids.add("site-" + k);
        }
      }
    }
    if (type.startsWith("com.example.t")) {
      int k = Integer.parseInt(type.substring("com.example.t".length()));
      if (k < TYPED) {
        ids.add("type-" + k);
      }
    }
    return ids;
  }

  @Test
  void indexHoldsEverySubscription() {
    assertThat(index.size()).isEqualTo(TOTAL).isEqualTo(10_000);
  }

  @Test
  void everyEventMatchesExactlyTheExpectedSubscriptions() {
    List<Object[]> cases = new ArrayList<>();
    cases.add(new Object[] {READING, Map.of("meter", "m-42", "value", 12345)});
    cases.add(
        new Object[] {
          READING, Map.of("meter", "m-7999", "value", 9999.5, "site", "site-12/room-4")
        });
    cases.add(
        new Object[] {READING, Map.of("meter", "m-8000", "value", 10_000)}); // beyond every range
    cases.add(new Object[] {READING, Map.of("meter", "m-0", "value", 0)});
    cases.add(new Object[] {READING, Map.of("meter", "m-1", "value", 9.999)});
    cases.add(new Object[] {READING, Map.of("meter", "m-1", "value", 10)});
    cases.add(new Object[] {READING, Map.of("meter", "m-123", "value", -5)});
    cases.add(new Object[] {READING, Map.of("site", "site-1/x")}); // not site-12, site-100…
    cases.add(new Object[] {READING, Map.of("site", "site-899/")});
    cases.add(new Object[] {READING, Map.of("site", "site-900/")});
    cases.add(
        new Object[] {
          "com.example.t5", Map.of("meter", "m-5", "value", 55)
        }); // range needs READING
    cases.add(new Object[] {"com.example.t98", Map.of()});
    cases.add(new Object[] {"com.example.t99", Map.of("meter", "M-5")});
    cases.add(new Object[] {"other", Map.of("meter", 42)});
    for (int i = 0; i < 200; i++) {
      int meter = (i * 7919) % 9000;
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("meter", "m-" + meter);
      data.put("value", (i * 104_729) % 11_000 + (i % 2 == 0 ? 0.5 : 0));
      if (i % 3 == 0) {
        data.put("site", "site-" + (i * 13 % 1000) + "/floor-" + i);
      }
      cases.add(new Object[] {i % 5 == 0 ? "com.example.t" + (i % 120) : READING, data});
    }

    long totalNanos = 0;
    long worstNanos = 0;
    for (Object[] c : cases) {
      String type = (String) c[0];
      @SuppressWarnings("unchecked")
      Map<String, Object> data = (Map<String, Object>) c[1];
      RoutableEvent e = Events.routable(type, data);
      long t0 = System.nanoTime();
      List<SubscriptionIndex.Entry> entries = index.match(e.event(), e.json());
      long took = System.nanoTime() - t0;
      totalNanos += took;
      worstNanos = Math.max(worstNanos, took);

      Set<String> ids =
          entries.stream().map(en -> en.subscription().id()).collect(Collectors.toSet());
      assertThat(entries).as("each subscription once for %s %s", type, data).hasSize(ids.size());
      assertThat(ids).as("matches of %s %s", type, data).isEqualTo(expected(type, data));
    }
    log.info(
        "match against {} subscriptions: {} events, mean {} µs/event, worst {} µs (information only)",
        index.size(),
        cases.size(),
        totalNanos / cases.size() / 1_000,
        worstNanos / 1_000);
  }

  @Test
  void spotChecksOfTheExpectedSets() {
    assertThat(match(Events.routable(READING, Map.of("meter", "m-42", "value", 12345))))
        .containsExactlyInAnyOrder("all", "meter-42");
    assertThat(match(Events.routable(READING, Map.of("meter", "m-42", "value", 4321))))
        .containsExactlyInAnyOrder("all", "meter-42", "range-432");
    assertThat(match(Events.routable(READING, Map.of("site", "site-12/r"))))
        .containsExactlyInAnyOrder("all", "site-12");
    assertThat(match(Events.routable("com.example.t7", Map.of("meter", "m-7", "value", 75))))
        .containsExactlyInAnyOrder("all", "type-7", "meter-7");
  }
}
