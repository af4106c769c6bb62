package io.activityservice.app.security.internal;

import io.activityservice.app.security.AuditLog;
import io.activityservice.app.security.Caller;
import io.activityservice.app.security.Callers;
import io.activityservice.channel.Redaction;
import io.activityservice.events.log.LogSafe;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Records every create, update, delete and redrive of the management API in the {@link AuditLog}
 * once the answer is known, whether it succeeded, failed or was denied. Runs inside the security
 * filter chain after authentication, so the actor is known; requests without valid credentials
 * (401) are not recorded (they have no actor, and recording them would let anyone fill the table).
 */
public class AuditFilter extends OncePerRequestFilter {

  private static final Logger log = LoggerFactory.getLogger(AuditFilter.class);
  private static final String API = "/api/v1/";

  /** Collections of the API whose changes are audited, and the resource kind each holds. */
  private static final Map<String, String> KINDS =
      Map.of(
          "event-types",
          "event-type",
          "subscriptions",
          "subscription",
          "channels",
          "channel",
          "detectors",
          "detector",
          "rules",
          "rule",
          "api-keys",
          "api-key",
          "dead-letters",
          "dead-letter",
          "archives",
          "archive",
          "replays",
          "replay",
          "connections",
          "connection");

  private final AuditLog audit;

  public AuditFilter(AuditLog audit) {
    this.audit = audit;
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    String method = request.getMethod();
    return !(method.equals("POST")
            || method.equals("PUT")
            || method.equals("PATCH")
            || method.equals("DELETE"))
        || collection(request) == null;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    int status = 500;
    try {
      chain.doFilter(request, response);
      status = response.getStatus();
    } finally {
      if (status != 401) {
        record(request, response, status);
      }
    }
  }

  private void record(HttpServletRequest request, HttpServletResponse response, int status) {
    try {
      String[] segments = segments(request);
      String collection = segments[0];
      String actor = Callers.find().map(Caller::id).orElse("unknown");
      audit.record(
          actor,
          action(request.getMethod(), segments, status),
          KINDS.get(collection),
          resourceId(request, response, segments),
          status);
    } catch (RuntimeException e) {
      // The change itself is done (or refused); a failed audit write must not turn the answer into
      // an error.
      log.error(
          "could not write the audit entry for {} {} (status {}): {}",
          LogSafe.text(request.getMethod()),
          LogSafe.text(request.getRequestURI()),
          status,
          LogSafe.text(e.toString(), 1024));
    }
  }

  private static String action(String method, String[] segments, int status) {
    return switch (method) {
      case "POST" ->
          segments[0].equals("dead-letters") && segments.length > 1 && segments[1].equals("redrive")
              ? "redrive"
              : segments.length == 1 ? "create" : "post";
      case "PUT" -> status == 201 ? "create" : "update";
      case "DELETE" -> segments[0].equals("api-keys") ? "revoke" : "delete";
      default -> method.toLowerCase(java.util.Locale.ROOT);
    };
  }

  private static String resourceId(
      HttpServletRequest request, HttpServletResponse response, String[] segments) {
    String id = null;
    if (request.getAttribute(AuditLog.RESOURCE_ID_ATTRIBUTE) instanceof String given) {
      id = given;
    } else if (segments.length > 1 && !segments[0].equals("dead-letters")) {
      id = segments[1];
    } else if (response.getHeader("Location") != null) {
      String location = response.getHeader("Location");
      id = decode(location.substring(location.lastIndexOf('/') + 1));
    } else if (request.getParameter("uri") != null) {
      id = request.getParameter("uri");
    }
    return id != null && segments[0].equals("channels") ? Redaction.uri(id) : id;
  }

  /** {@code /api/v1/rules/high/executions} → {@code [rules, high, executions]}, decoded. */
  private static String[] segments(HttpServletRequest request) {
    String path = request.getRequestURI().substring(request.getContextPath().length());
    String[] raw = path.substring(API.length()).split("/");
    for (int i = 0; i < raw.length; i++) {
      raw[i] = decode(raw[i]);
    }
    return raw;
  }

  private static String collection(HttpServletRequest request) {
    String path = request.getRequestURI().substring(request.getContextPath().length());
    if (!path.startsWith(API)) {
      return null;
    }
    String rest = path.substring(API.length());
    int slash = rest.indexOf('/');
    String collection = slash < 0 ? rest : rest.substring(0, slash);
    return KINDS.containsKey(collection) ? collection : null;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }
}
