package io.activityservice.channel.http;

import io.activityservice.channel.CloudEventAttributes;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.WireFormat;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CloudEvents <a
 * href="https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/bindings/http-protocol-binding.md#31-binary-content-mode">HTTP
 * binding's binary mode</a>: the data is the body ({@link DeliveryFormat#httpBody}), {@code
 * datacontenttype} the {@code Content-Type}, and every other attribute and extension a {@code
 * ce-<name>} header, its value percent-encoded as §3.1.3.2 asks (space, {@code "}, {@code %} and
 * everything outside printable ASCII, as UTF-8 octets), so no value can break the header.
 */
final class HttpBinaryMode {

  /** The {@code ce-*} headers of an event, encoded once per event. */
  static final WireFormat<Map<String, String>> HEADERS = HttpBinaryMode::headers;

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private HttpBinaryMode() {}

  static Map<String, String> headers(CloudEvent event) {
    Map<String, String> headers = new LinkedHashMap<>();
    CloudEventAttributes.asText(event)
        .forEach((name, value) -> headers.put("ce-" + name, encode(value)));
    return Collections.unmodifiableMap(headers);
  }

  /** Percent-encodes what §3.1.3.2 of the HTTP binding lists; other characters pass unchanged. */
  static String encode(String value) {
    boolean plain = true;
    for (int i = 0; i < value.length() && plain; i++) {
      plain = !needsEncoding(value.charAt(i));
    }
    if (plain) {
      return value;
    }
    StringBuilder out = new StringBuilder(value.length() + 16);
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (needsEncoding((char) c)) {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      } else {
        out.append((char) c);
      }
    }
    return out.toString();
  }

  private static boolean needsEncoding(char c) {
    return c <= 0x20 || c >= 0x7f || c == '"' || c == '%';
  }
}
