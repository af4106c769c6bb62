package io.activityservice.app.security;

import io.activityservice.events.scope.TypeScope;
import java.util.Set;

/**
 * A row of {@code api_key}.
 *
 * @param id public id
 * @param name what it is for
 * @param roles its roles
 * @param eventTypes its event-type scope
 * @param secretSha256 SHA-256 of its secret
 * @param createdAt epoch ms
 * @param createdBy the identity that created it
 * @param lastUsedAt epoch ms of the last use recorded (to the minute), or null
 * @param revokedAt epoch ms of its revocation, or null
 */
record StoredKey(
    String id,
    String name,
    Set<Role> roles,
    TypeScope eventTypes,
    byte[] secretSha256,
    long createdAt,
    String createdBy,
    Long lastUsedAt,
    Long revokedAt) {}
