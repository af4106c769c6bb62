package io.activityservice.events.transform;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A subscription's transformation, as written: JSONata expressions over the whole event in
 * structured-mode JSON (attributes, extensions and {@code data}).
 *
 * @param data expression whose value becomes the delivered data, or {@code null} to keep the data
 * @param attributes per attribute (e.g. {@code type}, {@code subject}, an extension), the
 *     expression whose value it gets; an expression without a value removes an optional attribute
 */
public record Transform(String data, Map<String, String> attributes) {

  public Transform {
    data = data == null || data.isBlank() ? null : data;
    attributes =
        attributes == null
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
  }

  /** Whether it changes nothing (no expression at all). */
  public boolean isEmpty() {
    return data == null && attributes.isEmpty();
  }
}
