package io.activityservice.events.routing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventData;
import io.cloudevents.jackson.JsonCloudEventData;
import io.cloudevents.types.Time;
import java.io.IOException;
import java.time.OffsetDateTime;
import java.util.Base64;

/**
 * An event ready for routing: the CloudEvent plus its structured-mode JSON view, built once, which
 * patterns are matched against and schemas validate.
 *
 * <p>The view is the event as the CloudEvents SDK's {@code JsonFormat} writes it (the encoding every
 * channel uses, {@link CloudEventJson#encode}): {@code time} in RFC 3339 with seconds, JSON data as
 * JSON, other data as {@code data_base64} (one difference: data of every JSON media type, e.g.
 * {@code application/vnd.acme+json}, is a JSON value here, so patterns and schemas see it, where the
 * SDK's encoder writes some of them as {@code data_base64}). It is built from the event's attributes without
 * serializing it: JSON data that arrived parsed (structured mode, plain JSON bodies) is used as
 * parsed, and JSON bytes (binary mode) are parsed here, once.
 *
 * @param event      the CloudEvent as received (with {@code time} filled in)
 * @param json       structured-mode JSON object of the event (attributes, extensions, data)
 * @param data       the parsed JSON data, or {@code null}
 * @param dataIsJson whether {@code data} was JSON (or absent)
 * @param receivedAt {@link System#nanoTime()} when the service received it
 * @param outbound   the event as handed to channels: one per routed event, shared by every matching target, so
 *                   each wire format encodes it once (and the parked copy reuses the structured JSON)
 */
public record RoutableEvent(CloudEvent event, ObjectNode json, JsonNode data, boolean dataIsJson,
                            long receivedAt, OutboundEvent outbound) {

  /**
   * Builds the JSON view.
   *
   * @throws InvalidInputException naming {@code data} if the content type says JSON but it is not
   */
  public static RoutableEvent of(CloudEvent event) {
    ObjectNode json = Json.MAPPER.createObjectNode();
    json.put("specversion", event.getSpecVersion().toString());
    json.put("id", event.getId());
    json.put("source", event.getSource().toString());
    json.put("type", event.getType());
    putIfPresent(json, "subject", event.getSubject());
    putIfPresent(json, "datacontenttype", event.getDataContentType());
    if (event.getDataSchema() != null) {
      json.put("dataschema", event.getDataSchema().toString());
    }
    if (event.getTime() != null) {
      json.put("time", Time.writeTime(event.getTime())); // RFC 3339: keeps ":00" seconds, unlike toString()
    }
    for (String name : event.getExtensionNames()) {
      json.set(name, extensionNode(event.getExtension(name)));
    }
    JsonNode data = null;
    boolean dataIsJson = true;
    CloudEventData raw = event.getData();
    if (raw instanceof JsonCloudEventData jsonData) {
      data = jsonData.getNode();
      json.set("data", data);
    } else if (raw != null) {
      byte[] bytes = raw.toBytes();
      if (isJson(event.getDataContentType())) {
        data = parseData(bytes);
        json.set("data", data);
      } else {
        dataIsJson = false;
        json.put("data_base64", Base64.getEncoder().encodeToString(bytes)); // as JsonFormat writes it
      }
    }
    return new RoutableEvent(event, json, dataIsJson ? data : null, dataIsJson, System.nanoTime(),
        OutboundEvent.of(event));
  }

  /** True for {@code application/json}, {@code text/json} and {@code +json} types, and for none. */
  public static boolean isJson(String contentType) {
    if (contentType == null) {
      return true;
    }
    int semi = contentType.indexOf(';');
    String base = (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase();
    return base.equals("application/json") || base.equals("text/json") || base.endsWith("+json");
  }

  private static JsonNode parseData(byte[] bytes) {
    try {
      return Json.MAPPER.readTree(bytes);
    } catch (IOException e) {
      throw new InvalidInputException("data", "datacontenttype says JSON but data is not valid JSON");
    }
  }

  /**
   * CloudEvents extension values are strings, integers, booleans, URIs, timestamps or bytes; written as
   * the SDK's JSON format writes them.
   */
  private static JsonNode extensionNode(Object value) {
    if (value instanceof Integer i) {
      return IntNode.valueOf(i);
    }
    if (value instanceof Number n) {
      return TextNode.valueOf(n.toString());
    }
    if (value instanceof Boolean b) {
      return BooleanNode.valueOf(b);
    }
    if (value instanceof byte[] bytes) {
      return TextNode.valueOf(Base64.getEncoder().encodeToString(bytes));
    }
    if (value instanceof OffsetDateTime time) {
      return TextNode.valueOf(Time.writeTime(time));
    }
    return TextNode.valueOf(String.valueOf(value));
  }

  private static void putIfPresent(ObjectNode json, String name, String value) {
    if (value != null) {
      json.put(name, value);
    }
  }
}
