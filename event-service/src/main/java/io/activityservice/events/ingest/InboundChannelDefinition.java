package io.activityservice.events.ingest;

import java.net.URI;
import java.time.OffsetDateTime;
import java.util.Map;

/**
 * A channel the service listens on.
 *
 * @param uri channel URI, e.g. {@code sqs:orders-in}
 * @param defaultType CloudEvents type for plain messages without CloudEvents attributes, or {@code
 *     null}
 * @param defaultSource CloudEvents source for such messages, or {@code null}
 * @param properties adapter-specific settings (e.g. {@code subscriptionName} for JMS topics)
 * @param origin {@code config} (application.yml) or {@code api} (added at runtime, persisted)
 * @param createdAt when it was added
 */
public record InboundChannelDefinition(
    String uri,
    String defaultType,
    URI defaultSource,
    Map<String, String> properties,
    String origin,
    OffsetDateTime createdAt) {

  public InboundChannelDefinition {
    properties = properties == null ? Map.of() : Map.copyOf(properties);
  }
}
