package io.activityservice.app.cluster;

import io.activityservice.events.cluster.ConfigApplyWaiter;
import io.activityservice.events.cluster.ConfigChangeLog;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * A create, update or delete of a definition (event type, subscription, inbound channel, detector,
 * rule set, archive) answers once its configuration version is in force on every live replica, at
 * most {@code activity.cluster.apply-wait} later ({@link ConfigApplyWaiter}).
 *
 * <p>The request's answer is held (the body is small) while the change's version is captured from
 * the {@link ConfigChangeLog} on the request thread; then the answer carries {@value #VERSION} and,
 * if the bound passed first, becomes {@code 202 Accepted} (same body) with {@value #LAGGING} naming
 * the replicas that have not applied it and a {@code Link: </api/v1/cluster/versions/{version}>;
 * rel="monitor"} to poll. Only these collections' writes pass through here: publishing ({@code POST
 * /api/v1/events}) is never held.
 */
@Component
public class ConfigApplyFilter extends OncePerRequestFilter {

  /** Header: the configuration version a definition write was recorded under. */
  public static final String VERSION = "Activity-Config-Version";

  /**
   * Header of a 202: live replicas that had not applied the version when the wait ended,
   * comma-separated.
   */
  public static final String LAGGING = "Activity-Config-Lagging";

  private static final String API = "/api/v1/";

  /** The collections whose writes are definition changes recorded in the configuration log. */
  private static final List<String> DEFINITIONS =
      List.of("event-types", "subscriptions", "channels", "detectors", "rules", "archives");

  private final ConfigApplyWaiter waiter;
  private final ClusterProperties props;

  ConfigApplyFilter(ConfigApplyWaiter waiter, ClusterProperties props) {
    this.waiter = waiter;
    this.props = props;
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    return !definitionWrite(request.getMethod(), request.getRequestURI());
  }

  /**
   * Whether a request is a create, update or delete of a definition, which waits until it is in
   * force (and may answer 202). Allocates nothing: {@code POST /api/v1/events} asks on every
   * publish.
   */
  public static boolean definitionWrite(String method, String path) {
    if (!(method.equals("POST")
            || method.equals("PUT")
            || method.equals("PATCH")
            || method.equals("DELETE"))
        || !path.startsWith(API)) {
      return false;
    }
    for (String collection : DEFINITIONS) {
      int end = API.length() + collection.length();
      if (path.startsWith(collection, API.length())
          && (path.length() == end || path.charAt(end) == '/')) {
        return true;
      }
    }
    return false;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    ContentCachingResponseWrapper held = new ContentCachingResponseWrapper(response);
    try {
      long version;
      try (ConfigChangeLog.Capture capture = ConfigChangeLog.capture()) {
        chain.doFilter(request, held);
        version = capture.highestVersion();
      }
      int status = held.getStatus();
      if (version > 0 && status >= 200 && status < 300) {
        held.setHeader(VERSION, Long.toString(version));
        if (!props.applyWait().isZero()) {
          ConfigApplyWaiter.Status s = waiter.await(version, props.applyWait());
          if (!s.inForce()) {
            held.setStatus(HttpStatus.ACCEPTED.value());
            held.setHeader(LAGGING, String.join(",", s.lagging()));
            held.setHeader("Link", "</api/v1/cluster/versions/" + version + ">; rel=\"monitor\"");
          }
        }
      }
    } finally {
      held.copyBodyToResponse();
    }
  }
}
