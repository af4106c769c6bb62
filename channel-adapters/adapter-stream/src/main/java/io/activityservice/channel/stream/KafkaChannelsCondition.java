package io.activityservice.channel.stream;

import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code activity.channels.kafka.enabled} is {@code true}, or when it is absent and
 * {@code spring.cloud.stream.kafka.binder.brokers} is set.
 */
class KafkaChannelsCondition extends SpringBootCondition {

  static final String ENABLED = "activity.channels.kafka.enabled";
  static final String BROKERS = "spring.cloud.stream.kafka.binder.brokers";

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    Binder binder = Binder.get(context.getEnvironment());
    Boolean enabled = binder.bind(ENABLED, Boolean.class).orElse(null);
    if (enabled != null) {
      return enabled
          ? ConditionOutcome.match(ENABLED + " is true")
          : ConditionOutcome.noMatch(ENABLED + " is false");
    }
    List<String> brokers = binder.bind(BROKERS, Bindable.listOf(String.class)).orElse(List.of());
    return brokers.stream().anyMatch(b -> !b.isBlank())
        ? ConditionOutcome.match(BROKERS + " is set")
        : ConditionOutcome.noMatch(BROKERS + " is not set (and " + ENABLED + " is absent)");
  }
}
