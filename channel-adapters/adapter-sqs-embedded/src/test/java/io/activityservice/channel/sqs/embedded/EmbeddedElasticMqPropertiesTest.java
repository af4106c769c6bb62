package io.activityservice.channel.sqs.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

class EmbeddedElasticMqPropertiesTest {

  private static EmbeddedElasticMqProperties bind(Map<String, String> values) {
    return new Binder(new MapConfigurationPropertySource(values))
        .bindOrCreate(EmbeddedElasticMqProperties.PREFIX, EmbeddedElasticMqProperties.class);
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    assertThat(bind(Map.of())).isEqualTo(new EmbeddedElasticMqProperties("127.0.0.1", 9324));
  }

  @Test
  void theKeysBindAndABadPortFailsWithAHint() {
    assertThat(bind(Map.of(EmbeddedElasticMqProperties.PREFIX + ".port", "0")).port()).isZero();
    assertThat(bind(Map.of(EmbeddedElasticMqProperties.PREFIX + ".host", " 0.0.0.0 ")).host())
        .isEqualTo("0.0.0.0");
    assertThatThrownBy(() -> bind(Map.of(EmbeddedElasticMqProperties.PREFIX + ".port", "70000")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessageContaining("embedded.port")
        .hasMessageContaining("0 = any free port");
  }
}
