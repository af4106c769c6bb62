package io.activityservice.app.config;

import io.activityservice.events.ingest.EventIngest;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Bounds on what one event may be ({@code activity.ingest.*}), checked at ingest on every channel.
 *
 * @param maxAttributeLength most characters in a context attribute ({@code id}, {@code source},
 *     {@code type}, {@code subject}, {@code dataschema}, {@code datacontenttype}) or an extension
 *     value (64-65536): longer ones are a 400 naming the attribute. Matching cost grows with the
 *     length of the values patterns read, so this bounds what an event costs the router
 */
@ConfigurationProperties("activity.ingest")
public record IngestProperties(
    @DefaultValue("" + EventIngest.DEFAULT_MAX_ATTRIBUTE_LENGTH) Integer maxAttributeLength) {

  public IngestProperties {
    if (maxAttributeLength < 64 || maxAttributeLength > 65_536) {
      throw new IllegalArgumentException(
          "activity.ingest.max-attribute-length must be between 64 and 65536 (was "
              + maxAttributeLength
              + "), e.g. 1024");
    }
  }
}
