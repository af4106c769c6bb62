package io.activityservice.app.web;

import io.activityservice.app.config.ActivityProperties;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

/** Refuses API requests that declare a body over {@code activity.max-body-size} before reading it. */
@Component
class BodySizeLimitFilter extends OncePerRequestFilter {

  private final long limit;
  private final HandlerExceptionResolver resolver;

  BodySizeLimitFilter(ActivityProperties props,
                      @org.springframework.beans.factory.annotation.Qualifier("handlerExceptionResolver")
                      HandlerExceptionResolver resolver) {
    this.limit = props.maxBodySize().toBytes();
    this.resolver = resolver;
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    return !request.getRequestURI().startsWith("/api/");
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (request.getContentLengthLong() > limit) {
      resolver.resolveException(request, response, null, new PayloadTooLargeException(limit));
      return;
    }
    chain.doFilter(request, response);
  }
}
