package io.activityservice.events.archive;

/**
 * One archived event.
 *
 * @param archiveId the archive it is kept in
 * @param rowId its row's id (keyset tie-break)
 * @param archivedAt when it was archived (epoch ms)
 * @param eventTime the event's {@code time} (epoch ms; the archive time if it had none)
 * @param id CloudEvents id
 * @param source CloudEvents source
 * @param type CloudEvents type
 * @param json the event in structured-mode JSON
 */
public record ArchivedEvent(
    long archiveId,
    String rowId,
    long archivedAt,
    long eventTime,
    String id,
    String source,
    String type,
    String json) {

  /** Its keyset position: event time, then archive time, then row id. */
  public Position position() {
    return new Position(eventTime, archivedAt, rowId);
  }

  /** A position in event-time order. */
  public record Position(long eventTime, long archivedAt, String rowId) {}
}
