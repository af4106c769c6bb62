package io.activityservice.channel;

import io.cloudevents.CloudEvent;
import io.cloudevents.types.Time;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An event's attributes as text, the way every binary-mode binding writes them (JMS properties,
 * Kafka and HTTP headers): the CloudEvents type system's canonical strings, so that one rule serves
 * every transport.
 */
public final class CloudEventAttributes {

  private CloudEventAttributes() {}

  /**
   * Every attribute but {@code datacontenttype} (which each binding maps to its own content-type
   * header): {@code specversion}, {@code id}, {@code source}, {@code type}, then {@code subject},
   * {@code time} and {@code dataschema} when set, then the extensions, each as {@link
   * #text(Object)}.
   */
  public static Map<String, String> asText(CloudEvent event) {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("specversion", event.getSpecVersion().toString());
    attributes.put("id", event.getId());
    attributes.put("source", event.getSource().toString());
    attributes.put("type", event.getType());
    if (event.getSubject() != null) {
      attributes.put("subject", event.getSubject());
    }
    if (event.getTime() != null) {
      attributes.put("time", Time.writeTime(event.getTime()));
    }
    if (event.getDataSchema() != null) {
      attributes.put("dataschema", event.getDataSchema().toString());
    }
    for (String name : event.getExtensionNames()) {
      Object value = event.getExtension(name);
      if (value != null) {
        attributes.put(name, text(value));
      }
    }
    return Collections.unmodifiableMap(attributes);
  }

  /**
   * The canonical string of an attribute value: Base64 for Binary, RFC 3339 for Timestamp, the
   * value itself for String, URI, Integer and Boolean.
   */
  public static String text(Object value) {
    if (value instanceof byte[] bytes) {
      return Base64.getEncoder().encodeToString(bytes);
    }
    if (value instanceof OffsetDateTime time) {
      return Time.writeTime(time);
    }
    return String.valueOf(value);
  }
}
