package io.activityservice.channel.jms.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

class EmbeddedActiveMqPropertiesTest {

  private static EmbeddedActiveMqProperties bind(Map<String, String> values) {
    return new Binder(new MapConfigurationPropertySource(values))
        .bindOrCreate(EmbeddedActiveMqProperties.PREFIX, EmbeddedActiveMqProperties.class);
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    EmbeddedActiveMqProperties d = bind(Map.of());
    assertThat(d)
        .isEqualTo(new EmbeddedActiveMqProperties("127.0.0.1", 61616, "./data/activemq", true));
    assertThat(d).isEqualTo(new EmbeddedActiveMqProperties(null, null, null, null));
  }

  @Test
  void theKeysBindAndABadPortFailsWithAHint() {
    assertThat(bind(Map.of(EmbeddedActiveMqProperties.PREFIX + ".port", "0")).port()).isZero();
    assertThatThrownBy(() -> bind(Map.of(EmbeddedActiveMqProperties.PREFIX + ".port", "70000")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessageContaining("embedded-broker.port")
        .hasMessageContaining("0 for a free one");
  }
}
