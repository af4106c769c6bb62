package io.activityservice.app.security;

import io.activityservice.events.problem.InvalidInputException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What an API key or a token may do. Which endpoints each role reaches is in {@link EndpointRoles}.
 */
public enum Role {
  /** Everything, including API keys, inbound channels, the audit log and every subscription. */
  ADMIN,
  /** Detectors and rules (and the event types they emit). */
  AUTHOR,
  /** Reads the registry and manages its own subscriptions, for the event types of its scope. */
  SUBSCRIBER,
  /** Publishes events of the event types of its scope. */
  PUBLISHER,
  /** Reads metrics ({@code /actuator/prometheus}, {@code /actuator/metrics}): for a scraper. */
  METRICS;

  /** The name used in the API, configuration and tokens: lower case, e.g. {@code publisher}. */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The Spring Security authority, e.g. {@code ROLE_PUBLISHER}. */
  public String authority() {
    return "ROLE_" + name();
  }

  /** The role named {@code text} (case-insensitive), if there is one. */
  public static Optional<Role> find(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String upper = text.trim().toUpperCase(Locale.ROOT);
    return Arrays.stream(values()).filter(r -> r.name().equals(upper)).findFirst();
  }

  /**
   * The role named {@code text}.
   *
   * @throws InvalidInputException naming {@code field} when there is no such role
   */
  public static Role parse(String text, String field) {
    return find(text)
        .orElseThrow(
            () ->
                new InvalidInputException(
                    field,
                    "unknown role '"
                        + text
                        + "'; roles are "
                        + Arrays.stream(values())
                            .map(Role::text)
                            .collect(Collectors.joining(", "))));
  }
}
