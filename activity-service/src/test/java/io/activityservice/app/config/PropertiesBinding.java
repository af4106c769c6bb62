package io.activityservice.app.config;

import java.util.Map;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * Binds a properties record the way Spring Boot does at start-up ({@code @DefaultValue}s,
 * conversions).
 */
public final class PropertiesBinding {

  private PropertiesBinding() {}

  /**
   * The record bound from {@code values} (names relative to {@code prefix}, e.g. {@code
   * max-sub-rules}); an invalid value throws the binder's exception, whose root cause is the
   * record's message.
   */
  public static <T> T bind(String prefix, Class<T> type, Map<String, String> values) {
    MapConfigurationPropertySource source = new MapConfigurationPropertySource();
    values.forEach((name, value) -> source.put(prefix + "." + name, value));
    return new Binder(source).bindOrCreate(prefix, type);
  }

  /** The record with every default. */
  public static <T> T defaults(String prefix, Class<T> type) {
    return bind(prefix, type, Map.of());
  }
}
