package io.activityservice.events.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parses CloudEvents from HTTP bodies in the three HTTP modes (structured, batch, binary) and says
 * precisely which attribute is wrong, e.g. {@code id: is required}. A body is parsed once: the tree
 * that is validated is turned into the event ({@link CloudEventJson#fromTree}), without writing and
 * reading the JSON again, and JSON data keeps its tree, so routing does not parse it again.
 */
public final class CloudEventParser {

  private static final List<String> REQUIRED = List.of("specversion", "id", "source", "type");
  private static final Set<String> KNOWN_HEADERS =
      Set.of("specversion", "id", "source", "type", "subject", "time", "dataschema");
  private static final Pattern EXTENSION_NAME = Pattern.compile("[a-z0-9]{1,20}");

  private CloudEventParser() {}

  /** Structured mode: {@code application/cloudevents+json}. */
  public static CloudEvent structured(byte[] body) {
    return structured(readTree(body), "");
  }

  /** Batch mode: a JSON array of structured events; errors are prefixed with the index. */
  public static List<CloudEvent> batch(byte[] body) {
    JsonNode root = readTree(body);
    if (!root.isArray()) {
      throw new InvalidInputException("body", "a batch must be a JSON array of CloudEvents");
    }
    List<CloudEvent> events = new ArrayList<>(root.size());
    List<FieldError> errors = new ArrayList<>();
    for (int i = 0; i < root.size(); i++) {
      try {
        events.add(structured(root.get(i), "[" + i + "]."));
      } catch (InvalidInputException e) {
        errors.addAll(e.errors());
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidInputException(errors);
    }
    return events;
  }

  /**
   * Binary mode: attributes in {@code ce-*} headers, data in the body. Values are percent-decoded
   * as the HTTP binding's §3.1.3.2 asks; a {@code %} that does not start a valid UTF-8 escape is
   * kept as it is (a sender that does not encode loses nothing).
   *
   * @param rawHeaders lower-case header names to values as received
   */
  public static CloudEvent binary(Map<String, String> rawHeaders, String contentType, byte[] body) {
    Map<String, String> headers = percentDecoded(rawHeaders);
    List<FieldError> errors = new ArrayList<>();
    for (String name : REQUIRED) {
      String v = headers.get("ce-" + name);
      if (v == null || v.isBlank()) {
        errors.add(new FieldError("ce-" + name, "header is required in binary mode"));
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidInputException(errors);
    }
    specVersion(headers.get("ce-specversion"), "ce-specversion");
    CloudEventBuilder b =
        CloudEventBuilder.v1()
            .withId(headers.get("ce-id"))
            .withSource(uri(headers.get("ce-source"), "ce-source"))
            .withType(headers.get("ce-type"));
    if (headers.containsKey("ce-subject")) {
      b.withSubject(headers.get("ce-subject"));
    }
    if (headers.containsKey("ce-time")) {
      b.withTime(time(headers.get("ce-time"), "ce-time"));
    }
    if (headers.containsKey("ce-dataschema")) {
      b.withDataSchema(uri(headers.get("ce-dataschema"), "ce-dataschema"));
    }
    for (Map.Entry<String, String> h : headers.entrySet()) {
      String name = h.getKey();
      if (name.startsWith("ce-") && !KNOWN_HEADERS.contains(name.substring(3))) {
        String ext = name.substring(3);
        if (!EXTENSION_NAME.matcher(ext).matches()) {
          throw new InvalidInputException(
              name, "extension names are 1-20 lower-case letters or digits");
        }
        b.withExtension(ext, h.getValue());
      }
    }
    if (body != null && body.length > 0) {
      b.withData(contentType, body);
    } else if (contentType != null) {
      b.withDataContentType(contentType);
    }
    return b.build();
  }

  private static Map<String, String> percentDecoded(Map<String, String> headers) {
    Map<String, String> decoded = null;
    for (Map.Entry<String, String> h : headers.entrySet()) {
      String value = h.getValue();
      if (value != null && value.indexOf('%') >= 0 && h.getKey().startsWith("ce-")) {
        if (decoded == null) {
          decoded = new HashMap<>(headers);
        }
        decoded.put(h.getKey(), percentDecode(value));
      }
    }
    return decoded == null ? headers : decoded;
  }

  /**
   * The value with its {@code %XX} escapes decoded as UTF-8, or unchanged if they are not valid.
   */
  static String percentDecode(String value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '%') {
        int hi = i + 2 < value.length() ? Character.digit(value.charAt(i + 1), 16) : -1;
        int lo = hi < 0 ? -1 : Character.digit(value.charAt(i + 2), 16);
        if (lo < 0) {
          return value;
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else if (c < 0x80) {
        bytes.write(c);
      } else {
        return value; // not an encoded value: characters outside ASCII are sent as escapes
      }
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      return value;
    }
  }

  private static CloudEvent structured(JsonNode node, String prefix) {
    if (node == null || !node.isObject()) {
      throw new InvalidInputException(
          prefix.isEmpty() ? "body" : prefix.substring(0, prefix.length() - 1),
          "a CloudEvent must be a JSON object");
    }
    List<FieldError> errors = new ArrayList<>();
    for (String name : REQUIRED) {
      JsonNode v = node.get(name);
      if (v == null || !v.isTextual() || v.asText().isBlank()) {
        errors.add(new FieldError(prefix + name, "is required and must be a non-empty string"));
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidInputException(errors);
    }
    specVersion(node.get("specversion").asText(), prefix + "specversion");
    uri(node.get("source").asText(), prefix + "source");
    if (node.hasNonNull("time")) {
      time(node.get("time").asText(), prefix + "time");
    }
    try {
      // The tree that was validated is the event: read by the SDK's deserializer from the tree, not
      // parsed again.
      return CloudEventJson.fromTree(node);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(prefix.isEmpty() ? "body" : prefix + "event", e.getMessage());
    }
  }

  private static JsonNode readTree(byte[] body) {
    if (body == null || body.length == 0) {
      throw new InvalidInputException("body", "is empty; expected a CloudEvent");
    }
    try {
      JsonNode node = Json.MAPPER.readTree(body);
      if (node == null) {
        throw new InvalidInputException("body", "is empty; expected a CloudEvent");
      }
      return node;
    } catch (IOException e) {
      String msg =
          e instanceof com.fasterxml.jackson.core.JsonProcessingException jpe
              ? jpe.getOriginalMessage()
              : e.getMessage();
      throw new InvalidInputException("body", "is not valid JSON: " + msg);
    }
  }

  private static void specVersion(String v, String field) {
    if (!"1.0".equals(v)) {
      throw new InvalidInputException(
          field, "must be \"1.0\" (CloudEvents 1.0), was \"" + v + "\"");
    }
  }

  private static URI uri(String v, String field) {
    try {
      return new URI(v);
    } catch (URISyntaxException e) {
      throw new InvalidInputException(field, "must be a URI-reference: " + e.getMessage());
    }
  }

  private static OffsetDateTime time(String v, String field) {
    try {
      return OffsetDateTime.parse(v.toUpperCase(Locale.ROOT));
    } catch (DateTimeParseException e) {
      throw new InvalidInputException(
          field, "must be an RFC 3339 timestamp, e.g. 2026-11-21T18:00:00Z");
    }
  }
}
