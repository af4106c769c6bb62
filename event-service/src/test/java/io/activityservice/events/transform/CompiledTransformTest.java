package io.activityservice.events.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.support.Events;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompiledTransformTest {

  private static final TransformLimits LIMITS = TransformLimits.DEFAULT;

  private static RoutableEvent order() {
    return Events.routable(
        "com.example.order.placed",
        Map.of("orderId", "o-17", "total", 42.5, "items", List.of(Map.of("sku", "a"))));
  }

  private static CompiledTransform compile(String data, Map<String, String> attributes) {
    return CompiledTransform.compile(new Transform(data, attributes), LIMITS);
  }

  private static String data(CloudEvent e) {
    return new String(e.getData().toBytes(), StandardCharsets.UTF_8);
  }

  @Test
  void reshapesTheDataAndAttributes() {
    RoutableEvent order = order();
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("type", "'partner.order.v2'");
    attributes.put("subject", "data.orderId");
    attributes.put("tenant", "'acme'");
    CloudEvent out =
        compile(
                "{'ref': data.orderId, 'amount': data.total, 'lines': $count(data.items), 'from': source}",
                attributes)
            .apply(order);
    assertThat(Json.parse(data(out), "data"))
        .isEqualTo(
            Json.parse(
                "{\"ref\":\"o-17\",\"amount\":42.5,\"lines\":1,\"from\":\"/test\"}"
                    .replace("/test", order.event().getSource().toString()),
                "x"));
    assertThat(out.getDataContentType()).isEqualTo("application/json");
    assertThat(out.getType()).isEqualTo("partner.order.v2");
    assertThat(out.getSubject()).isEqualTo("o-17");
    assertThat(out.getExtension("tenant")).isEqualTo("acme");
    assertThat(out.getId()).isEqualTo(order.event().getId());
  }

  @Test
  void aStringResultIsSentAsTextUnlessAContentTypeIsGiven() {
    CloudEvent text = compile("'<order id=\"' & data.orderId & '\"/>'", null).apply(order());
    assertThat(data(text)).isEqualTo("<order id=\"o-17\"/>");
    assertThat(text.getDataContentType()).isEqualTo("text/plain; charset=utf-8");
    CloudEvent xml =
        compile(
                "'<order id=\"' & data.orderId & '\"/>'",
                Map.of("datacontenttype", "'application/xml'"))
            .apply(order());
    assertThat(xml.getDataContentType()).isEqualTo("application/xml");
  }

  @Test
  void attributesAloneKeepTheData() {
    CloudEvent out = compile(null, Map.of("type", "'renamed'")).apply(order());
    assertThat(out.getType()).isEqualTo("renamed");
    assertThat(out.getData().toBytes()).isEqualTo(order().event().getData().toBytes());
  }

  @Test
  void aSyntaxErrorNamesTheFieldAndThePosition() {
    InvalidInputException e =
        catchThrowableOfType(InvalidInputException.class, () -> compile("{'a': }", null));
    assertThat(e.errors().get(0).field()).isEqualTo("transform.data");
    assertThat(e.errors().get(0).reason()).contains("at position");
    InvalidInputException a =
        catchThrowableOfType(
            InvalidInputException.class, () -> compile(null, Map.of("subject", "data.(")));
    assertThat(a.errors().get(0).field()).isEqualTo("transform.attributes.subject");
    assertThat(a.errors().get(0).reason()).contains("position");
  }

  @Test
  void theIdAndSpecversionCannotBeTransformed() {
    assertThatThrownBy(() -> compile(null, Map.of("id", "'x'")))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.errors().get(0).field()).isEqualTo("transform.attributes.id"));
    assertThatThrownBy(() -> compile(null, Map.of("Bad-Name", "'x'")))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void tooLongAnExpressionIsRefused() {
    TransformLimits small = new TransformLimits(Duration.ofMillis(100), 100, 4096, 1 << 24, 32);
    assertThatThrownBy(
            () -> CompiledTransform.compile(new Transform("'" + "a".repeat(40) + "'", null), small))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("max-expression-length");
  }

  // ------------------------------------------------------------------ hostile expressions

  /**
   * Evaluates, expecting the sandbox to stop it; returns the reason and checks the elapsed time.
   */
  private static String stopped(String expression) {
    CompiledTransform t = compile(expression, null);
    long start = System.nanoTime();
    TransformException e = catchThrowableOfType(TransformException.class, () -> t.apply(order()));
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(e).as("stopped: %s", expression).isNotNull();
    // The time budget is 1 s; allow for a loaded machine, but not for an unbounded run.
    assertThat(millis).as("time to stop %s", expression).isLessThan(3_000);
    return e.getMessage();
  }

  @Test
  void infiniteRecursionIsStopped() {
    assertThat(stopped("($f := function($x){$f($x)}; $f(1))"))
        .containsAnyOf("max-depth", "timeout", "max-allocated-bytes");
  }

  @Test
  void deepNonTailRecursionIsStoppedByTheDepthBound() {
    assertThat(stopped("($f := function($x){ $x > 0 ? 1 + $f($x - 1) : 0 }; $f(100000))"))
        .containsAnyOf("max-depth", "timeout");
  }

  @Test
  void exponentialStringsAreStopped() {
    assertThat(
            stopped("($s := function($x, $n){ $n = 0 ? $x : $s($x & $x, $n - 1) }; $s('ab', 40))"))
        .containsAnyOf("max-allocated-bytes", "max-output-bytes", "timeout", "max-depth");
  }

  @Test
  void exponentialStructuresAreStopped() {
    assertThat(stopped("($f := function($n){ $n <= 0 ? [] : [$f($n - 1), $f($n - 1)] }; $f(40))"))
        .containsAnyOf("max-allocated-bytes", "timeout", "max-depth");
  }

  @Test
  void aHugeRangeIsStoppedAtTheOutputBound() {
    assertThat(stopped("[1..10000000]")).contains("max-output-bytes");
  }

  @Test
  void aMappedHugeRangeIsStopped() {
    assertThat(stopped("[1..10000000].{'n': $}"))
        .containsAnyOf("max-allocated-bytes", "timeout", "max-output-bytes");
  }

  @Test
  void aHugePadIsRefusedAtOnce() {
    // The engine's own $pad is quadratic (10^5 characters took 2 s here) inside one step.
    assertThat(stopped("$pad('', 100000000)")).contains("max-output-bytes");
    CloudEvent ok = compile("$pad('x', -5, '#')", null).apply(order());
    assertThat(data(ok)).isEqualTo("####x");
  }

  @Test
  void evalIsBoundedToo() {
    assertThat(stopped("$eval('($f := function($x){$f($x)}; $f(1))')"))
        .containsAnyOf("max-depth", "timeout", "max-allocated-bytes");
  }

  @Test
  void aFunctionResultIsNotData() {
    assertThat(stopped("function($x){$x}")).contains("not JSON");
  }

  @Test
  void aRequiredAttributeWithoutValueFails() {
    assertThat(
            catchThrowableOfType(
                    TransformException.class,
                    () -> compile(null, Map.of("type", "data.missing")).apply(order()))
                .getMessage())
        .contains("transform.attributes.type");
  }

  @Test
  void theSandboxStaysUsableAfterHostileEvaluations() {
    CompiledTransform ok = compile("data.orderId", null);
    for (int i = 0; i < 3; i++) {
      stopped("($f := function($x){$f($x)}; $f(1))");
      assertThat(data(ok.apply(order()))).isEqualTo("o-17");
    }
  }

  @Test
  void evaluatesOnManyThreadsAtOnce() throws Exception {
    CompiledTransform t = compile("{'ref': data.orderId, 'n': $count(data.items)}", null);
    List<Thread> threads = new java.util.ArrayList<>();
    java.util.concurrent.ConcurrentLinkedQueue<String> results =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    for (int i = 0; i < 4; i++) {
      Thread th =
          new Thread(
              () -> {
                for (int j = 0; j < 200; j++) {
                  results.add(data(t.apply(order())));
                }
              });
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join();
    }
    assertThat(results).hasSize(800).containsOnly("{\"ref\":\"o-17\",\"n\":1}");
  }
}
