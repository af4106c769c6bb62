package io.activityservice.app.config;

import static io.activityservice.app.config.PropertiesBinding.bind;
import static io.activityservice.app.config.PropertiesBinding.defaults;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.transform.TransformLimits;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The transformation sandbox's bounds as settings: defaults, binding, start-up refusal. */
class TransformPropertiesTest {

  @Test
  void defaultsAgreeWithTheModuleAndBadValuesStopTheStartUp() {
    assertThat(defaults("activity.transforms", TransformProperties.class).limits())
        .isEqualTo(TransformLimits.DEFAULT);
    TransformLimits bound =
        bind(
                "activity.transforms",
                TransformProperties.class,
                Map.of("timeout", "250ms", "max-allocated-bytes", "16MB"))
            .limits();
    assertThat(bound.timeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(bound.maxAllocatedBytes()).isEqualTo(16L * 1024 * 1024);
    assertThatThrownBy(
            () -> bind("activity.transforms", TransformProperties.class, Map.of("max-depth", "1")))
        .rootCause()
        .hasMessageContaining("activity.transforms.max-depth");
    assertThatThrownBy(
            () -> bind("activity.transforms", TransformProperties.class, Map.of("timeout", "0s")))
        .rootCause()
        .hasMessageContaining("activity.transforms.timeout");
  }
}
