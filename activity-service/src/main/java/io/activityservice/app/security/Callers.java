package io.activityservice.app.security;

import java.util.Optional;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/** The {@link Caller} of the current request, for controllers that check scopes and ownership. */
public final class Callers {

  private Callers() {}

  /**
   * The authenticated caller of this request ({@link Caller#ANYBODY} when authentication is off).
   *
   * @throws IllegalStateException outside an authenticated request (a wiring error: every API path
   *     is protected)
   */
  public static Caller current() {
    return find()
        .orElseThrow(() -> new IllegalStateException("no authenticated caller on this request"));
  }

  /** The caller of this request, if it has one. */
  public static Optional<Caller> find() {
    Authentication a = SecurityContextHolder.getContext().getAuthentication();
    return a != null && a.getPrincipal() instanceof Caller c ? Optional.of(c) : Optional.empty();
  }
}
