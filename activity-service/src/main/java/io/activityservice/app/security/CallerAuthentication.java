package io.activityservice.app.security;

import java.util.Collection;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/**
 * An authenticated {@link Caller} as Spring Security sees it: authorities {@code ROLE_<ROLE>}, no
 * credentials.
 */
public final class CallerAuthentication extends AbstractAuthenticationToken {

  private final Caller caller;

  public CallerAuthentication(Caller caller) {
    super(authorities(caller));
    this.caller = caller;
    setAuthenticated(true);
  }

  private static Collection<GrantedAuthority> authorities(Caller caller) {
    return caller.roles().stream()
        .map(r -> (GrantedAuthority) new SimpleGrantedAuthority(r.authority()))
        .toList();
  }

  /** The caller. */
  public Caller caller() {
    return caller;
  }

  @Override
  public Object getCredentials() {
    // The token is checked and dropped: nothing secret stays in the security context.
    return "";
  }

  @Override
  public Object getPrincipal() {
    return caller;
  }

  @Override
  public String getName() {
    return caller.id();
  }
}
