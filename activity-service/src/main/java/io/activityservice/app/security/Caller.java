package io.activityservice.app.security;

import io.activityservice.events.scope.TypeScope;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Who sends a request: an API key, a JWT's subject, or (with {@code
 * activity.security.enabled=false}) anybody.
 *
 * @param id the identity recorded as subscription owner and audit actor: {@code key:<key id>},
 *     {@code jwt:<subject>}, or {@code anonymous}
 * @param kind how it authenticated
 * @param roles its roles
 * @param eventTypes the event types it may publish or subscribe to (ignored for admins, who may use
 *     every type)
 */
public record Caller(String id, Kind kind, Set<Role> roles, TypeScope eventTypes) {

  /** How a caller authenticated. */
  public enum Kind {
    /** An API key (stored, or the bootstrap admin key). */
    KEY,
    /** A JWT bearer token. */
    JWT,
    /** Nobody: authentication is off. */
    ANONYMOUS
  }

  /** Everybody, with every role, when {@code activity.security.enabled=false}. */
  public static final Caller ANYBODY =
      new Caller("anonymous", Kind.ANONYMOUS, EnumSet.allOf(Role.class), TypeScope.ALL);

  public Caller {
    roles = roles.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(roles));
    eventTypes = eventTypes == null ? TypeScope.NONE : eventTypes;
  }

  /** Whether it has {@code role}. */
  public boolean has(Role role) {
    return roles.contains(role);
  }

  /** Whether it is an admin (every endpoint, every type, every subscription). */
  public boolean isAdmin() {
    return roles.contains(Role.ADMIN);
  }

  /**
   * The types it may publish and subscribe to: every type for admins, else its {@link #eventTypes}.
   */
  public TypeScope scope() {
    return isAdmin() ? TypeScope.ALL : eventTypes;
  }

  /**
   * Whether it may see and manage a subscription owned by {@code owner}: admins all, others their
   * own.
   */
  public boolean owns(String owner) {
    return isAdmin() || id.equals(owner);
  }

  /** Its roles for messages, e.g. {@code publisher, subscriber}, or {@code no role}. */
  public String rolesText() {
    return roles.isEmpty()
        ? "no role"
        : roles.stream().map(Role::text).collect(Collectors.joining(", "));
  }

  /** What it authenticated with, for messages: {@code key} or {@code token}. */
  public String credential() {
    return kind == Kind.JWT ? "token" : "key";
  }
}
