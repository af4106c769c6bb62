package io.activityservice.channel;

import java.net.URI;
import java.util.Map;

/**
 * How an inbound channel turns transport messages into CloudEvents.
 *
 * @param defaultType CloudEvents {@code type} given to a plain message that carries no CloudEvents
 *     attributes; {@code null} means such messages are rejected
 * @param defaultSource CloudEvents {@code source} for such messages
 * @param properties adapter-specific options (e.g. {@code subscriptionName} for JMS topics)
 */
public record InboundSettings(
    String defaultType, URI defaultSource, Map<String, String> properties) {

  public InboundSettings {
    properties = properties == null ? Map.of() : Map.copyOf(properties);
  }

  /** Settings with no defaults: only CloudEvents are accepted. */
  public static InboundSettings strict() {
    return new InboundSettings(null, null, Map.of());
  }

  /** An adapter-specific property, or {@code fallback}. */
  public String property(String name, String fallback) {
    return properties.getOrDefault(name, fallback);
  }
}
