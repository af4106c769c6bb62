package io.activityservice.app.security.internal;

import io.activityservice.app.security.Caller;
import io.activityservice.app.security.Callers;
import io.activityservice.app.security.EndpointRoles;
import io.activityservice.app.security.Role;
import io.activityservice.events.json.Json;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.authentication.InsufficientAuthenticationException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;

/**
 * 401 and 403 answers of the security filter chain as {@code application/problem+json}, saying what
 * is missing: credentials, a valid token, or which role the endpoint needs and which the caller
 * has.
 */
public class ProblemResponses implements AuthenticationEntryPoint, AccessDeniedHandler {

  @Override
  public void commence(
      HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
      throws IOException {
    EndpointRoles.Rule rule = EndpointRoles.ruleFor(request);
    boolean noCredentials = e instanceof InsufficientAuthenticationException;
    String detail =
        noCredentials
            ? "this endpoint needs "
                + rule.needs()
                + ": send Authorization: Bearer <API key or JWT>"
            : "the bearer token was refused: " + e.getMessage();
    response.setHeader(
        "WWW-Authenticate",
        noCredentials
            ? "Bearer"
            : "Bearer error=\"invalid_token\", error_description=\"the bearer token was refused\"");
    Map<String, Object> p = problem(request, 401, "Unauthorized", detail);
    p.put("needs", rule.needs());
    write(response, 401, p);
  }

  @Override
  public void handle(
      HttpServletRequest request, HttpServletResponse response, AccessDeniedException e)
      throws IOException {
    EndpointRoles.Rule rule = EndpointRoles.ruleFor(request);
    Caller caller = Callers.find().orElse(null);
    String has = caller == null ? "no role" : caller.rolesText();
    String detail =
        "this endpoint needs "
            + rule.needs()
            + "; your "
            + (caller == null ? "key" : caller.credential())
            + " has "
            + has;
    Map<String, Object> p = problem(request, 403, "Forbidden", detail);
    p.put("requiredRoles", rule.roles().stream().map(Role::text).toList());
    p.put(
        "roles",
        caller == null ? java.util.List.of() : caller.roles().stream().map(Role::text).toList());
    write(response, 403, p);
  }

  /**
   * A request the HTTP firewall refused (e.g. an encoded slash or a control character in the path):
   * 400.
   */
  public static void rejected(
      HttpServletRequest request,
      HttpServletResponse response,
      org.springframework.security.web.firewall.RequestRejectedException e)
      throws IOException {
    Map<String, Object> p =
        problem(request, 400, "Bad request", "the request was refused: the URL is not allowed");
    p.put("field", "path");
    write(response, 400, p);
  }

  private static Map<String, Object> problem(
      HttpServletRequest request, int status, String title, String detail) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("type", "about:blank");
    p.put("title", title);
    p.put("status", status);
    p.put("detail", detail);
    p.put("instance", request.getRequestURI());
    return p;
  }

  private static void write(HttpServletResponse response, int status, Map<String, Object> problem)
      throws IOException {
    if (response.isCommitted()) {
      return;
    }
    response.setStatus(status);
    response.setContentType("application/problem+json");
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    response.getOutputStream().write(Json.MAPPER.writeValueAsBytes(problem));
  }
}
