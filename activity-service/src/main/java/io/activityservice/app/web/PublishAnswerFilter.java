package io.activityservice.app.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The outermost filter of {@code POST /api/v1/events}: once the request thread is back here, no
 * filter touches the response any more, so it tells the request's {@link PublishAnswer} that
 * another thread may now write the answer (or writes it itself if the last event settled
 * meanwhile). Outside the observation and security filters ({@link Ordered#HIGHEST_PRECEDENCE}).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class PublishAnswerFilter extends OncePerRequestFilter {

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    return !"POST".equals(request.getMethod()) || !"/api/v1/events".equals(request.getRequestURI());
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    try {
      chain.doFilter(request, response);
    } finally {
      if (request.getAttribute(PublishAnswer.ATTRIBUTE) instanceof PublishAnswer answer) {
        answer.dispatchReturned();
      }
    }
  }
}
