package io.activityservice.app.config;

import static io.activityservice.app.config.PropertiesBinding.bind;
import static io.activityservice.app.config.PropertiesBinding.defaults;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.subscription.PatternLimits;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The issue-19 bounds as settings: defaults, and start-up refusal with the setting's name and an
 * example.
 */
class BoundsPropertiesTest {

  @Test
  void defaultsAndValidation() {
    assertThat(defaults("activity.patterns", PatternProperties.class).limits())
        .isEqualTo(PatternLimits.DEFAULT);
    assertThat(
            bind("activity.patterns", PatternProperties.class, Map.of("max-sub-rules", "64"))
                .limits()
                .maxSubRules())
        .isEqualTo(64);
    assertThatThrownBy(
            () -> bind("activity.patterns", PatternProperties.class, Map.of("max-sub-rules", "0")))
        .rootCause()
        .hasMessage(
            "activity.patterns.max-sub-rules must be between 1 and 10000 (was 0), e.g. 256");
    assertThatThrownBy(
            () ->
                bind(
                    "activity.patterns",
                    PatternProperties.class,
                    Map.of("max-wildcard-complexity", "5000")))
        .rootCause()
        .hasMessageContaining("activity.patterns.max-wildcard-complexity");
    assertThat(defaults("activity.ingest", IngestProperties.class).maxAttributeLength())
        .isEqualTo(1024);
    assertThatThrownBy(
            () ->
                bind(
                    "activity.ingest",
                    IngestProperties.class,
                    Map.of("max-attribute-length", "10")))
        .rootCause()
        .hasMessage(
            "activity.ingest.max-attribute-length must be between 64 and 65536 (was 10), e.g. 1024");
  }
}
