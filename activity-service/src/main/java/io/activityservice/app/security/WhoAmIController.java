package io.activityservice.app.security;

import io.swagger.v3.oas.annotations.Operation;
import java.util.List;
import java.util.Locale;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/whoami}: who the caller's key or token is, for clients that adapt to it (the
 * console shows only the pages its roles reach).
 */
@RestController
class WhoAmIController {

  /**
   * The caller.
   *
   * @param id its identity ({@code key:<id>}, {@code jwt:<subject>} or {@code anonymous})
   * @param kind {@code key}, {@code jwt} or {@code anonymous}
   * @param roles its roles, lower case
   * @param eventTypes the event-type patterns it may publish, subscribe to and stream ({@code *}
   *     for admins)
   */
  record WhoAmIView(String id, String kind, List<String> roles, List<String> eventTypes) {}

  @Operation(summary = "The caller's identity, roles and event-type scope")
  @GetMapping("/api/v1/whoami")
  WhoAmIView whoami() {
    Caller c = Callers.current();
    return new WhoAmIView(
        c.id(),
        c.kind().name().toLowerCase(Locale.ROOT),
        c.roles().stream().map(Role::text).toList(),
        c.scope().patterns());
  }
}
