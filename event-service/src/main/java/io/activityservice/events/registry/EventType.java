package io.activityservice.events.registry;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.OffsetDateTime;

/**
 * A registered event type: what consumers look up before subscribing.
 *
 * @param type the CloudEvents {@code type}, e.g. {@code com.example.meter.reading}
 * @param description free text, searchable
 * @param owner team or person responsible
 * @param schema JSON Schema for the event's {@code data}, or {@code null}
 * @param version starts at 1, incremented by every update
 * @param createdAt when it was registered
 * @param updatedAt when it last changed
 */
public record EventType(
    String type,
    String description,
    String owner,
    JsonNode schema,
    long version,
    OffsetDateTime createdAt,
    OffsetDateTime updatedAt) {}
