package io.activityservice.rules.store;

import java.time.OffsetDateTime;

/**
 * A stored rule set.
 *
 * @param name      unique name, used in {@code /api/v1/rules/{name}}
 * @param drl       the user's DRL
 * @param version   1 on creation, +1 on every update
 * @param createdAt when it was created
 * @param updatedAt when it was last changed
 */
public record RuleDefinition(String name, String drl, long version, OffsetDateTime createdAt,
                             OffsetDateTime updatedAt) {
}
