package io.activityservice.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.subscription.PatternLimits;
import org.junit.jupiter.api.Test;

/** The issue-19 bounds as settings: defaults, and start-up refusal with the setting's name and an example. */
class BoundsPropertiesTest {

  @Test
  void defaultsAndValidation() {
    assertThat(new PatternProperties(null, null, null, null, null, null, null, null).limits())
        .isEqualTo(PatternLimits.DEFAULT);
    assertThat(new PatternProperties(null, 64, null, null, null, null, null, null).limits().maxSubRules()).isEqualTo(64);
    assertThatThrownBy(() -> new PatternProperties(null, 0, null, null, null, null, null, null))
        .hasMessage("activity.patterns.max-sub-rules must be between 1 and 10000 (was 0), e.g. 256");
    assertThatThrownBy(() -> new PatternProperties(null, null, null, 5_000, null, null, null, null))
        .hasMessageContaining("activity.patterns.max-wildcard-complexity");
    assertThat(new IngestProperties(null).maxAttributeLength()).isEqualTo(1024);
    assertThatThrownBy(() -> new IngestProperties(10))
        .hasMessage("activity.ingest.max-attribute-length must be between 64 and 65536 (was 10), e.g. 1024");
  }
}
