package io.activityservice.app.security;

import static io.activityservice.app.security.Role.ADMIN;
import static io.activityservice.app.security.Role.AUTHOR;
import static io.activityservice.app.security.Role.METRICS;
import static io.activityservice.app.security.Role.PUBLISHER;
import static io.activityservice.app.security.Role.SUBSCRIBER;

import io.activityservice.events.scope.TypeScope;
import jakarta.servlet.http.HttpServletRequest;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.http.HttpMethod;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * Which roles reach which endpoint: the one table the security filter chain is built from (and
 * docs/security.md, "Roles", shows). The first matching rule decides; a path no rule names needs
 * {@code admin}. Finer checks happen in the controllers: a publisher's or subscriber's event-type
 * scope ({@link TypeScope}), and a subscriber sees only its own subscriptions, their deliveries and
 * dead letters.
 */
public final class EndpointRoles {

  /**
   * One row of the table.
   *
   * @param method the HTTP method, or null for every method
   * @param paths path patterns ({@code /**} also matches the path itself)
   * @param open true: no authentication at all (health probes)
   * @param roles roles that pass; empty (and not open): any authenticated caller, whatever its
   *     roles
   */
  public record Rule(HttpMethod method, List<String> paths, boolean open, Set<Role> roles) {

    /** Whether the request is for this rule. */
    public RequestMatcher matcher() {
      List<RequestMatcher> matchers =
          paths.stream()
              .map(
                  p -> (RequestMatcher) PathPatternRequestMatcher.withDefaults().matcher(method, p))
              .toList();
      return matchers.size() == 1 ? matchers.get(0) : new OrRequestMatcher(matchers);
    }

    /**
     * What it needs, for messages: {@code role admin or author}, {@code any valid key or token}.
     */
    public String needs() {
      if (open) {
        return "nothing";
      }
      if (roles.isEmpty()) {
        return "any valid key or token";
      }
      return "role " + roles.stream().map(Role::text).collect(Collectors.joining(" or "));
    }
  }

  /** The table. */
  public static final List<Rule> RULES =
      List.of(
          open(
              HttpMethod.GET,
              "/actuator/health",
              "/actuator/health/liveness",
              "/actuator/health/readiness"),
          // The console's static files hold no data: every page asks the API below with the
          // operator's token.
          open(HttpMethod.GET, "/console", "/console/**"),
          rule(HttpMethod.GET, Set.of(), "/api/v1/whoami"),
          rule(
              HttpMethod.GET,
              roles(ADMIN, METRICS),
              "/actuator/prometheus",
              "/actuator/metrics/**"),
          rule(null, roles(ADMIN), "/actuator/**"),
          rule(
              HttpMethod.GET,
              Set.of(),
              "/v3/api-docs/**",
              "/v3/api-docs.yaml",
              "/swagger-ui.html",
              "/swagger-ui/**"),
          rule(HttpMethod.POST, roles(ADMIN, PUBLISHER), "/api/v1/events"),
          // The live tail sends only events of the types the caller may read (its event-type
          // scope).
          rule(HttpMethod.GET, roles(ADMIN, SUBSCRIBER), "/api/v1/events/stream"),
          rule(HttpMethod.GET, roles(ADMIN, METRICS), "/api/v1/stats"),
          rule(HttpMethod.GET, roles(ADMIN, METRICS), "/api/v1/capacity"),
          // Tests a pattern against an event the caller gives: nothing stored is read, but the
          // schema check is.
          rule(
              HttpMethod.POST,
              roles(ADMIN, AUTHOR, SUBSCRIBER, PUBLISHER),
              "/api/v1/patterns/test"),
          rule(
              HttpMethod.GET,
              roles(ADMIN, AUTHOR, SUBSCRIBER, PUBLISHER),
              "/api/v1/event-types/**"),
          rule(null, roles(ADMIN, AUTHOR), "/api/v1/event-types/**"),
          rule(
              null,
              roles(ADMIN, SUBSCRIBER),
              "/api/v1/subscriptions/**",
              "/api/v1/dead-letters/**",
              "/api/v1/connections/**"),
          rule(null, roles(ADMIN, AUTHOR), "/api/v1/detectors/**", "/api/v1/rules/**"),
          // Whether a definition write is in force on every replica: whoever may write one may poll
          // (names replicas only).
          rule(HttpMethod.GET, Set.of(), "/api/v1/cluster/versions/**"),
          rule(HttpMethod.GET, roles(ADMIN, METRICS), "/api/v1/cluster/**"),
          // Archives hold every matching event whatever its type, and a replay re-delivers them:
          // admin only.
          rule(
              null,
              roles(ADMIN),
              "/api/v1/channels/**",
              "/api/v1/api-keys/**",
              "/api/v1/audit/**",
              "/api/v1/archives/**",
              "/api/v1/replays/**"));

  /** What applies to paths no rule names. */
  public static final Rule OTHERWISE = new Rule(null, List.of("/**"), false, roles(ADMIN));

  private static final List<RequestMatcher> MATCHERS = RULES.stream().map(Rule::matcher).toList();

  private EndpointRoles() {}

  /** The rule that applies to {@code request}. */
  public static Rule ruleFor(HttpServletRequest request) {
    for (int i = 0; i < RULES.size(); i++) {
      if (MATCHERS.get(i).matches(request)) {
        return RULES.get(i);
      }
    }
    return OTHERWISE;
  }

  private static Rule open(HttpMethod method, String... paths) {
    return new Rule(method, List.of(paths), true, Set.of());
  }

  private static Rule rule(HttpMethod method, Set<Role> roles, String... paths) {
    return new Rule(method, List.of(paths), false, roles);
  }

  private static Set<Role> roles(Role first, Role... more) {
    return EnumSet.of(first, more);
  }
}
