package io.activityservice.events.ingest;

import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventData;
import io.cloudevents.SpecVersion;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.Set;

/**
 * An event that arrived without {@code time}, with the time ingest gave it: a view of the received
 * event, not a copy (the SDK's builder would copy every attribute and extension into a new event,
 * per event without a time). Everything but {@code time} is the received event's. Immutable, like
 * the event it wraps.
 *
 * <p>Equal to another {@code TimedCloudEvent} of an equal event and time (like the SDK's events,
 * equality is within one class).
 */
final class TimedCloudEvent implements CloudEvent {

  private final CloudEvent event;
  private final OffsetDateTime time;

  TimedCloudEvent(CloudEvent event, OffsetDateTime time) {
    this.event = Objects.requireNonNull(event, "event");
    this.time = Objects.requireNonNull(time, "time");
  }

  @Override
  public CloudEventData getData() {
    return event.getData();
  }

  @Override
  public SpecVersion getSpecVersion() {
    return event.getSpecVersion();
  }

  @Override
  public String getId() {
    return event.getId();
  }

  @Override
  public String getType() {
    return event.getType();
  }

  @Override
  public URI getSource() {
    return event.getSource();
  }

  @Override
  public String getDataContentType() {
    return event.getDataContentType();
  }

  @Override
  public URI getDataSchema() {
    return event.getDataSchema();
  }

  @Override
  public String getSubject() {
    return event.getSubject();
  }

  @Override
  public OffsetDateTime getTime() {
    return time;
  }

  @Override
  public Object getAttribute(String attributeName) throws IllegalArgumentException {
    return "time".equals(attributeName) ? time : event.getAttribute(attributeName);
  }

  @Override
  public Object getExtension(String extensionName) {
    return event.getExtension(extensionName);
  }

  @Override
  public Set<String> getExtensionNames() {
    return event.getExtensionNames();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TimedCloudEvent t && t.event.equals(event) && t.time.equals(time);
  }

  @Override
  public int hashCode() {
    return 31 * event.hashCode() + time.hashCode();
  }

  @Override
  public String toString() {
    return "CloudEvent{id='"
        + getId()
        + "', source="
        + getSource()
        + ", type='"
        + getType()
        + "', time="
        + time
        + "}";
  }
}
