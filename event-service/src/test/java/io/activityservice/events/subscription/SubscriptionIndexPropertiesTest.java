package io.activityservice.events.subscription;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import software.amazon.event.ruler.GenericMachine;

/**
 * The router's match ({@link SubscriptionIndex#match(RoutableEvent)}: exact-type patterns from a
 * map, the others against a view with only the members they read) finds exactly the subscriptions
 * Event Ruler finds with every pattern in one machine matched against the whole JSON view — the
 * index before issue 20.
 */
class SubscriptionIndexPropertiesTest {

  private static final List<String> PATTERNS =
      List.of(
          "{\"type\": [\"a\"]}",
          "{\"type\": [\"a\", \"b\"]}",
          "{\"type\": [\"b\", \"b\"]}",
          "{\"type\": [\"c\"], \"source\": [\"/s1\"]}",
          "{\"type\": [{\"prefix\": \"a\"}]}",
          "{\"type\": [5]}",
          "{\"type\": [null]}",
          "{\"$or\": [{\"type\": [\"a\"]}, {\"subject\": [\"x\"]}]}",
          "{\"subject\": [{\"exists\": false}]}",
          "{\"subject\": [{\"exists\": true}], \"type\": [\"b\"]}",
          "{\"n\": [{\"numeric\": [\">\", 3]}]}",
          "{\"n\": [\"5\"]}",
          "{\"flag\": [true]}",
          "{\"label\": [{\"anything-but\": \"x\"}]}",
          "{\"source\": [{\"wildcard\": \"/s*\"}]}",
          "{\"subject\": [{\"equals-ignore-case\": \"X\"}]}",
          "{\"data\": {\"v\": [1]}}",
          "{\"data\": {\"a\": {\"b\": [\"y\"]}}, \"type\": [\"a\"]}",
          "{\"data\": {\"list\": [2]}}",
          "{\"data_base64\": [{\"exists\": true}]}",
          "{\"time\": [{\"prefix\": \"2026\"}]}",
          "{\"datacontenttype\": [\"application/json\"]}",
          "{\"id\": [{\"suffix\": \"7\"}]}");

  /** A subscription for the test: its pattern (null = every event). */
  record Sub(String id, String pattern) {}

  @Property(tries = 300)
  void theRoutersMatchIsEventRulersOnTheWholeView(
      @ForAll("subscriptions") List<String> patterns,
      @ForAll("events") List<CloudEvent> events,
      @ForAll("removals") List<Integer> removals)
      throws Exception {
    SubscriptionIndex index = new SubscriptionIndex();
    List<Sub> subs = new ArrayList<>();
    for (int i = 0; i < patterns.size(); i++) {
      Sub s = new Sub("s" + i, patterns.get(i));
      subs.add(s);
      index.add(entry(s));
    }
    for (int r : removals) {
      if (!subs.isEmpty()) {
        Sub gone = subs.remove(Math.floorMod(r, subs.size()));
        index.remove(gone.id());
      }
    }
    GenericMachine<String> reference = new GenericMachine<>();
    Set<String> everyEvent = new HashSet<>();
    for (Sub s : subs) {
      if (s.pattern() == null) {
        everyEvent.add(s.id());
      } else {
        reference.addRule(s.id(), s.pattern());
      }
    }
    for (CloudEvent e : events) {
      RoutableEvent routable = RoutableEvent.of(e);
      Set<String> expected = new HashSet<>(everyEvent);
      if (!reference.isEmpty()) {
        expected.addAll(reference.rulesForJSONEvent(routable.json()));
      }
      List<String> routed =
          index.match(RoutableEvent.of(e)).stream().map(x -> x.subscription().id()).toList();
      assertThat(routed).as("each once").doesNotHaveDuplicates();
      assertThat(new HashSet<>(routed)).as(e.toString()).isEqualTo(expected);
      List<String> whole =
          index.match(routable.event(), routable.json()).stream()
              .map(x -> x.subscription().id())
              .toList();
      assertThat(new HashSet<>(whole)).isEqualTo(expected);
      Statistics.label("matches").collect(Math.min(expected.size(), 3));
    }
  }

  private static SubscriptionIndex.Entry entry(Sub s) {
    Subscription sub =
        new Subscription(
            s.id(),
            s.id(),
            s.pattern() == null ? null : Json.parse(s.pattern(), "p"),
            null,
            "fake:" + s.id(),
            RetryPolicy.DEFAULT,
            null,
            OffsetDateTime.now());
    return new SubscriptionIndex.Entry(sub, null, ChannelUri.parse("fake:" + s.id()), null);
  }

  @Provide
  Arbitrary<List<String>> subscriptions() {
    Arbitrary<String> pattern = Arbitraries.oneOf(Arbitraries.of(PATTERNS), Arbitraries.just(null));
    return pattern.list().ofMinSize(1).ofMaxSize(8);
  }

  @Provide
  Arbitrary<List<Integer>> removals() {
    return Arbitraries.integers().between(0, 100).list().ofMaxSize(3);
  }

  @Provide
  Arbitrary<List<CloudEvent>> events() {
    Arbitrary<String> type = Arbitraries.of("a", "b", "c", "ab", "5");
    Arbitrary<String> source = Arbitraries.of("/s1", "/s2", "/t");
    Arbitrary<String> subject = Arbitraries.of("x", "X", "y", "");
    Arbitrary<Integer> n = Arbitraries.integers().between(0, 8);
    Arbitrary<Integer> shape = Arbitraries.integers().between(0, 5);
    Arbitrary<CloudEvent> event =
        Combinators.combine(type, source, subject, n, shape)
            .as(
                (t, s, sub, num, k) -> {
                  CloudEventBuilder b =
                      CloudEventBuilder.v1()
                          .withId("e" + num + k)
                          .withSource(URI.create(s))
                          .withType(t);
                  if (!sub.isEmpty()) {
                    b.withSubject(sub);
                  }
                  if (k % 2 == 0) {
                    b.withTime(OffsetDateTime.parse("2026-11-21T18:00:00Z"));
                  }
                  if (k != 3) {
                    b.withExtension("n", num);
                  } else {
                    b.withExtension("n", Integer.toString(num));
                  }
                  if (k == 1) {
                    b.withExtension("flag", true).withExtension("label", "x");
                  }
                  switch (k) {
                    case 0, 1 ->
                        b.withData(
                            "application/json",
                            ("{\"v\":"
                                    + (num % 2)
                                    + ",\"a\":{\"b\":\"y\"},\"list\":[1,"
                                    + num
                                    + "]}")
                                .getBytes(StandardCharsets.UTF_8));
                    case 2 -> b.withData("application/octet-stream", new byte[] {1, 2, 3});
                    case 4 -> b.withData("text/plain", "v".getBytes(StandardCharsets.UTF_8));
                    default -> {}
                  }
                  return b.build();
                });
    return event.list().ofMinSize(1).ofMaxSize(6);
  }
}
