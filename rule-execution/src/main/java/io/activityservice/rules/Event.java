package io.activityservice.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.activityservice.events.model.HopCount;
import io.activityservice.events.model.RoutableEvent;
import io.cloudevents.CloudEvent;
import java.util.Map;

/**
 * The fact rules see: a read-only view of one CloudEvent that entered routing, shared by every rule
 * session the event is handed to. Rules read the attributes through the getters and the data with
 * {@link #number(String)}, {@link #text(String)} and {@link #has(String)}, which take dotted paths
 * ({@code "reading.value"}, {@code "items.0.sku"}) and never throw, or as a read-only map ({@link
 * #getData()}).
 *
 * <p>Nothing public leads from it to the routed event's JSON or to the CloudEvent: every public
 * method returns a string, a number, a boolean or a read-only view, so no rule can change what
 * subscribers receive. The service's own code (actions, the engine) reaches the routed event
 * through {@link EventAccess}, which rules cannot name.
 *
 * <p>Declared to Drools as {@code @role(event) @timestamp(time)}: {@link #getTime()} is the event's
 * {@code time} in epoch milliseconds, and drives the session's clock (event time).
 */
public final class Event {

  /** The CloudEvents extension that counts how many rule actions led to this event. */
  public static final String HOP_COUNT = HopCount.EXTENSION;

  private final RoutableEvent routable;
  private final long time;
  private volatile Map<String, Object> dataMap;

  private Event(RoutableEvent routable) {
    this.routable = routable;
    CloudEvent e = routable.event();
    this.time =
        e.getTime() == null ? System.currentTimeMillis() : e.getTime().toInstant().toEpochMilli();
  }

  /** Wraps a routed event; cheap (no copying or conversion). */
  public static Event of(RoutableEvent routable) {
    return new Event(routable);
  }

  public String getId() {
    return routable.event().getId();
  }

  public String getType() {
    return routable.event().getType();
  }

  public String getSource() {
    return routable.event().getSource().toString();
  }

  /** The subject, or {@code null}. */
  public String getSubject() {
    return routable.event().getSubject();
  }

  /** The event's {@code time} in epoch milliseconds (the service fills it in when missing). */
  public long getTime() {
    return time;
  }

  /**
   * The JSON data as a read-only map (empty when the data is absent or not a JSON object): a view
   * of the routed event's data, not a copy. Nested objects and arrays are read-only maps and lists
   * too; every mutator throws {@link UnsupportedOperationException}.
   */
  public Map<String, Object> getData() {
    Map<String, Object> m = dataMap;
    if (m == null) {
      JsonNode data = routable.data();
      m = data instanceof ObjectNode o ? new JsonView.ObjectView(o) : Map.of();
      dataMap = m;
    }
    return m;
  }

  /**
   * The number at a dotted path of the data; numeric strings count. {@code NaN} when absent or not
   * a number, so that every comparison with it is false.
   */
  public double number(String path) {
    JsonNode n = DataPath.find(routable.data(), path);
    if (n == null) {
      return Double.NaN;
    }
    if (n.isNumber()) {
      return n.doubleValue();
    }
    if (n.isTextual()) {
      try {
        return Double.parseDouble(n.textValue().trim());
      } catch (NumberFormatException e) {
        return Double.NaN;
      }
    }
    return Double.NaN;
  }

  /**
   * The value at a dotted path as text (JSON for objects and arrays), or {@code null} when absent.
   */
  public String text(String path) {
    JsonNode n = DataPath.find(routable.data(), path);
    if (n == null || n.isNull()) {
      return null;
    }
    return n.isValueNode() ? n.asText() : n.toString();
  }

  /** Whether the data has a non-null value at a dotted path. */
  public boolean has(String path) {
    JsonNode n = DataPath.find(routable.data(), path);
    return n != null && !n.isNull();
  }

  /** How many rule actions led to this event: its {@code hopcount} extension, 0 when absent. */
  public int hopCount() {
    return HopCount.of(routable.event());
  }

  /** The CloudEvent as received: for the service's code only, through {@link EventAccess}. */
  CloudEvent cloudEvent() {
    return routable.event();
  }

  /** The routed event: for the service's code only, through {@link EventAccess}. */
  RoutableEvent routable() {
    return routable;
  }

  @Override
  public String toString() {
    return "Event[id=" + getId() + ", type=" + getType() + ", source=" + getSource() + "]";
  }
}
