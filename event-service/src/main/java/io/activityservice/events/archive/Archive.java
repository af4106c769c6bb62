package io.activityservice.events.archive;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;

/**
 * An archive: events matching {@code pattern} are kept for {@code retention}.
 *
 * @param name unique name
 * @param id internal number (names its storage partitions)
 * @param pattern an event pattern in the subscription pattern language, or {@code null} for every
 *     event
 * @param retention how long archived events are kept (at least; storage is dropped by whole days)
 * @param createdAt creation time (epoch ms)
 * @param eventCount events archived and not yet dropped by retention
 * @param sizeBytes their size (structured JSON)
 */
public record Archive(
    String name,
    long id,
    JsonNode pattern,
    Duration retention,
    long createdAt,
    long eventCount,
    long sizeBytes) {}
