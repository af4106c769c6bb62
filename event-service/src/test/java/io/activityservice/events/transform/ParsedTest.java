package io.activityservice.events.transform;

import static org.assertj.core.api.Assertions.assertThat;

import com.dashjoin.jsonata.Jsonata;
import java.lang.reflect.Field;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The engine keeps each evaluation's frame as the enclosing frame of the next, so without parsing
 * again a thread's copy would walk one more frame per evaluation on every lookup (3,002 after 3,000
 * evaluations). Reads the engine's private fields: this pins the engine behaviour the workaround
 * exists for.
 */
class ParsedTest {

  private static int frameDepth(Jsonata engine) throws ReflectiveOperationException {
    Field environment = Jsonata.class.getDeclaredField("environment");
    environment.setAccessible(true);
    Field parent = Jsonata.Frame.class.getDeclaredField("parent");
    parent.setAccessible(true);
    int depth = 0;
    for (Object f = environment.get(engine); f != null; f = parent.get(f)) {
      depth++;
    }
    return depth;
  }

  private static void evaluate(Jsonata engine) {
    Jsonata.Frame frame = engine.createFrame();
    frame.setRuntimeBounds(1_000, 100);
    engine.evaluate(Map.of("data", Map.of("value", 1)), frame);
  }

  @Test
  void theEnginesFrameChainGrowsByOnePerEvaluationWithBindings() throws Exception {
    Jsonata engine = Jsonata.jsonata("data.value");
    int before = frameDepth(engine);
    for (int i = 0; i < 300; i++) {
      evaluate(engine);
    }
    assertThat(frameDepth(engine) - before).isEqualTo(300);
  }

  @Test
  void aThreadsCopyIsParsedAgainSoItsChainStaysShort() throws Exception {
    CompiledTransform.Parsed parsed =
        new CompiledTransform.Parsed("data.value", Jsonata.jsonata("data.value"));
    int deepest = 0;
    for (int i = 0; i < 3_000; i++) {
      Jsonata engine = parsed.next();
      evaluate(engine);
      deepest = Math.max(deepest, frameDepth(engine));
    }
    assertThat(deepest).isLessThanOrEqualTo(CompiledTransform.Parsed.EVALUATIONS_PER_PARSE + 3);
  }
}
