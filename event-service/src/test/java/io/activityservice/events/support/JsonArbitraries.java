package io.activityservice.events.support;

import java.util.ArrayList;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;

/** jqwik generators of JSON-shaped values (maps, lists and scalars that Jackson writes as JSON). */
public final class JsonArbitraries {

  private JsonArbitraries() {}

  /** JSON values nested to {@code depth}: null, booleans, numbers, strings, arrays and objects. */
  public static Arbitrary<Object> jsonValue(int depth) {
    Arbitrary<Object> scalar =
        Arbitraries.oneOf(
            Arbitraries.strings().ofMaxLength(30).map(s -> (Object) s),
            Arbitraries.of("1.0", "/a", "http://h/p", "2026-11-21T18:00:00Z", "a b", "", " ")
                .map(s -> (Object) s),
            Arbitraries.integers().map(i -> (Object) i),
            Arbitraries.doubles().map(d -> (Object) d),
            Arbitraries.of(true, false).map(b -> (Object) b),
            Arbitraries.just(null));
    if (depth <= 0) {
      return scalar;
    }
    Arbitrary<Object> array =
        jsonValue(depth - 1).list().ofMaxSize(4).map(l -> (Object) new ArrayList<>(l));
    Arbitrary<Object> object =
        Arbitraries.maps(Arbitraries.strings().ofMaxLength(10), jsonValue(depth - 1))
            .ofMaxSize(4)
            .map(m -> (Object) m);
    return Arbitraries.frequencyOf(Tuple.of(6, scalar), Tuple.of(1, array), Tuple.of(1, object));
  }
}
