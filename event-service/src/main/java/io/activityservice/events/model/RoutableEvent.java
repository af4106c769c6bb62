package io.activityservice.events.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.tracing.EventTracing;
import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventData;
import io.cloudevents.jackson.JsonCloudEventData;
import io.cloudevents.types.Time;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.Collection;

/**
 * An event ready for routing: the CloudEvent plus its structured-mode JSON view, which patterns are
 * matched against and schemas validate — built lazily, and only as far as someone reads it.
 *
 * <p>The view is the event as the CloudEvents SDK's {@code JsonFormat} writes it (the encoding
 * every channel uses, {@link CloudEventJson#encode}): {@code time} in RFC 3339 with seconds, JSON
 * data as JSON, other data as {@code data_base64} (one difference: data of every JSON media type,
 * e.g. {@code application/vnd.acme+json}, is a JSON value here, so patterns and schemas see it,
 * where the SDK's encoder writes some of them as {@code data_base64}). It is built from the event's
 * attributes without serializing it: JSON data that arrived parsed (structured mode, plain JSON
 * bodies) is used as parsed, and JSON bytes (binary mode) are parsed here, once.
 *
 * <p><b>Lazy.</b> A relay whose subscriptions select on attributes never needs the data as a tree:
 * JSON data is then only checked to be JSON when the event is created (so an event whose content
 * type says JSON but whose data is not is refused at ingest, as before), and parsed on the first
 * {@link #data()} or {@link #json()} — by a pattern on {@code data.*}, a schema, a detector, a rule
 * set, an archive's pattern. {@link #view(Collection)} builds just the members a matcher reads, and
 * the time is formatted once, when first needed. Thread-safe: taps read the event on their own
 * threads; each lazy part is computed once.
 */
public final class RoutableEvent {

  private final CloudEvent event;
  private final long receivedAt;
  private final OutboundEvent outbound;
  private final boolean dataIsJson;

  /** JSON data still to be parsed ({@code null} once parsed, or when there is none to parse). */
  private byte[] unparsed;

  private volatile JsonNode data;
  private volatile ObjectNode json;
  private volatile String time;

  /**
   * The span this event is handled under; {@code null} for not traced (no volatile store per event
   * when tracing is off).
   */
  private volatile EventTracing.Hop trace;

  private RoutableEvent(CloudEvent event, boolean dataIsJson, JsonNode data, byte[] unparsed) {
    this.event = event;
    this.dataIsJson = dataIsJson;
    this.data = data;
    this.unparsed = unparsed;
    this.receivedAt = System.nanoTime();
    this.outbound = OutboundEvent.of(event);
  }

  /**
   * An event for routing; JSON data is checked now and parsed when first read.
   *
   * @throws InvalidInputException naming {@code data} if the content type says JSON but it is not
   */
  public static RoutableEvent of(CloudEvent event) {
    return of(event, false);
  }

  /**
   * An event for routing.
   *
   * @param parseData parse JSON data now (someone will read it: a schema, a pattern on data),
   *     instead of checking it now and parsing it when first read
   * @throws InvalidInputException naming {@code data} if the content type says JSON but it is not
   */
  public static RoutableEvent of(CloudEvent event, boolean parseData) {
    CloudEventData raw = event.getData();
    if (raw instanceof JsonCloudEventData jsonData) {
      return new RoutableEvent(event, true, jsonData.getNode(), null);
    }
    if (raw == null) {
      return new RoutableEvent(event, true, null, null);
    }
    if (!isJson(event.getDataContentType())) {
      return new RoutableEvent(event, false, null, null);
    }
    byte[] bytes = raw.toBytes();
    if (parseData) {
      return new RoutableEvent(event, true, parseData(bytes), null);
    }
    if (!Json.isValidValue(bytes)) {
      throw notJson();
    }
    return new RoutableEvent(event, true, null, bytes);
  }

  /** The CloudEvent as received (with {@code time} filled in by ingest). */
  public CloudEvent event() {
    return event;
  }

  /** {@link System#nanoTime()} when the service received it. */
  public long receivedAt() {
    return receivedAt;
  }

  /**
   * The event as handed to channels: one per routed event, shared by every matching target, so each
   * wire format encodes it once (and the parked copy reuses the structured JSON).
   */
  public OutboundEvent outbound() {
    return outbound;
  }

  /**
   * The span the event is handled under (its receipt, derivation or replay): deliveries start their
   * spans as its children. {@link EventTracing.Hop#NONE} when the event is not traced.
   */
  public EventTracing.Hop trace() {
    EventTracing.Hop t = trace;
    return t == null ? EventTracing.Hop.NONE : t;
  }

  /** Sets the span the event is handled under; see {@link #trace()}. */
  public RoutableEvent trace(EventTracing.Hop hop) {
    this.trace = hop;
    return this;
  }

  /** Whether the data is JSON (or absent). */
  public boolean dataIsJson() {
    return dataIsJson;
  }

  /**
   * The parsed JSON data, or {@code null} (no data, or data that is not JSON); parsed on the first
   * call.
   */
  public JsonNode data() {
    JsonNode d = data;
    if (d != null || !dataIsJson) {
      return d;
    }
    synchronized (this) {
      if (data == null && unparsed != null) {
        data = parseData(unparsed); // checked when the event was created: cannot fail here
        unparsed = null;
      }
      return data;
    }
  }

  /**
   * The whole structured-mode JSON object of the event (attributes, extensions, data); built on the
   * first call.
   */
  public ObjectNode json() {
    ObjectNode j = json;
    if (j != null) {
      return j;
    }
    j = Json.MAPPER.createObjectNode();
    putAttributes(j, null);
    for (String name : event.getExtensionNames()) {
      j.set(name, extensionNode(event.getExtension(name)));
    }
    putData(j);
    json = j; // racing callers build equal views; either may win
    return j;
  }

  /**
   * The structured-mode JSON object with only the given top-level members (those present in the
   * event): what an Event Ruler machine reads when its rules reference only these fields (it
   * ignores every other member).
   */
  public ObjectNode view(Collection<String> members) {
    ObjectNode full = json;
    if (full != null) {
      return full;
    }
    ObjectNode v = Json.MAPPER.createObjectNode();
    putAttributes(v, members);
    for (String name : members) {
      Object ext = event.getExtension(name);
      if (ext != null) {
        v.set(name, extensionNode(ext));
      }
    }
    if (dataIsJson ? members.contains("data") : members.contains("data_base64")) {
      putData(v);
    }
    return v;
  }

  /**
   * The value of a top-level member as Event Ruler reads it from the JSON view: strings in double
   * quotes (not escaped, as Ruler writes them), integers and booleans as literals; {@code null} if
   * the event has no such attribute or extension. Only for attributes and extensions (never {@code
   * data}).
   */
  public String rulerValue(String member) {
    Object ext =
        event.getExtension(
            member); // as in the view, where an extension is set after the attributes
    if (ext != null) {
      JsonNode node = extensionNode(ext);
      return node.isTextual() ? '"' + node.asText() + '"' : node.asText();
    }
    String text = attributeText(member);
    return text == null ? null : '"' + text + '"';
  }

  /**
   * The event's {@code time} in RFC 3339 as the SDK's JSON format writes it, formatted once; {@code
   * null} if none.
   */
  public String time() {
    String t = time;
    if (t == null && event.getTime() != null) {
      t = Time.writeTime(event.getTime()); // RFC 3339: keeps ":00" seconds, unlike toString()
      time = t;
    }
    return t;
  }

  /**
   * A context attribute as text, as the view has it; {@code null} if absent or not an attribute.
   */
  private String attributeText(String name) {
    return switch (name) {
      case "specversion" -> event.getSpecVersion().toString();
      case "id" -> event.getId();
      case "source" -> event.getSource().toString();
      case "type" -> event.getType();
      case "subject" -> event.getSubject();
      case "datacontenttype" -> event.getDataContentType();
      case "dataschema" -> event.getDataSchema() == null ? null : event.getDataSchema().toString();
      case "time" -> time();
      default -> null;
    };
  }

  private static final String[] ATTRIBUTES = {
    "specversion", "id", "source", "type", "subject", "datacontenttype", "dataschema", "time"
  };

  /** The context attributes in the view's order; only {@code members} if given. */
  private void putAttributes(ObjectNode j, Collection<String> members) {
    for (String name : ATTRIBUTES) {
      if (members == null || members.contains(name)) {
        String text = attributeText(name);
        if (text != null) {
          j.put(name, text);
        }
      }
    }
  }

  private void putData(ObjectNode j) {
    if (dataIsJson) {
      JsonNode d = data();
      if (d != null) {
        j.set("data", d);
      }
    } else if (event.getData() != null) {
      j.put(
          "data_base64",
          Base64.getEncoder().encodeToString(event.getData().toBytes())); // as JsonFormat writes it
    }
  }

  /** True for {@code application/json}, {@code text/json} and {@code +json} types, and for none. */
  public static boolean isJson(String contentType) {
    if (contentType == null) {
      return true;
    }
    int semi = contentType.indexOf(';');
    String base = (semi < 0 ? contentType : contentType.substring(0, semi)).trim();
    return base.equalsIgnoreCase("application/json")
        || base.equalsIgnoreCase("text/json")
        || base.regionMatches(true, base.length() - 5, "+json", 0, 5);
  }

  private static JsonNode parseData(byte[] bytes) {
    return Json.read(bytes, "data", NOT_JSON);
  }

  private static final String NOT_JSON = "datacontenttype says JSON but data is not valid JSON";

  private static InvalidInputException notJson() {
    return new InvalidInputException("data", NOT_JSON);
  }

  /**
   * CloudEvents extension values are strings, integers, booleans, URIs, timestamps or bytes;
   * written as the SDK's JSON format writes them.
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

  @Override
  public String toString() {
    return "RoutableEvent[" + event.getId() + "]";
  }
}
