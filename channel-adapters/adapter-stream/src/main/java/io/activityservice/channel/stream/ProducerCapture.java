package io.activityservice.channel.stream;

import java.util.function.Supplier;
import org.springframework.cloud.stream.binder.kafka.config.ClientFactoryCustomizer;
import org.springframework.kafka.core.ProducerFactory;

/**
 * Captures the producer factory the Kafka binder creates while it binds one producer, so that the
 * outbound channel sends through the binder's own producer (its configuration, customizers and
 * lifecycle) with a per-record callback, instead of through the binder's message handler, whose
 * asynchronous mode reports results only to shared channels.
 *
 * <p>Registered once on the binder ({@code KafkaMessageChannelBinder.addClientFactoryCustomizer});
 * a binding made on a thread inside {@link #during} hands its factory to that thread. Thread-safe.
 */
final class ProducerCapture implements ClientFactoryCustomizer {

  private final ThreadLocal<ProducerFactory<?, ?>[]> slot = new ThreadLocal<>();

  @Override
  public void configure(ProducerFactory<?, ?> factory) {
    ProducerFactory<?, ?>[] target = slot.get();
    if (target != null) {
      target[0] = factory;
    }
  }

  /**
   * Runs a binding and returns the producer factory the binder created for it.
   *
   * @return the factory, or {@code null} if the binder created none (a transactional binder shares
   *     one)
   */
  ProducerFactory<?, ?> during(Supplier<?> binding) {
    ProducerFactory<?, ?>[] target = new ProducerFactory<?, ?>[1];
    slot.set(target);
    try {
      binding.get();
    } finally {
      slot.remove();
    }
    return target[0];
  }
}
