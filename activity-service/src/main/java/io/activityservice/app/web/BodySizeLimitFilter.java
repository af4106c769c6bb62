package io.activityservice.app.web;

import io.activityservice.app.config.ActivityProperties;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Bounds every API request body to {@code activity.max-body-size}, however it is sent: a declared
 * {@code Content-Length} over the limit is refused before anything is read, and every body
 * (chunked, or with a {@code Content-Length} that understates it) is counted as it is read, so the
 * reader (Jackson, the CloudEvent parser) gets a {@link PayloadTooLargeException} at the first byte
 * over the limit instead of the rest. Either way the answer is a 413 problem naming {@code body}.
 */
@Component
class BodySizeLimitFilter extends OncePerRequestFilter {

  private final long limit;
  private final HandlerExceptionResolver resolver;

  BodySizeLimitFilter(
      ActivityProperties props,
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
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (request.getContentLengthLong() > limit) {
      resolver.resolveException(request, response, null, new PayloadTooLargeException(limit));
      return;
    }
    chain.doFilter(new Bounded(request, limit), response);
  }

  /** The request with a body that counts what is read. */
  private static final class Bounded extends HttpServletRequestWrapper {
    private final long limit;
    private ServletInputStream stream;
    private BufferedReader reader;

    Bounded(HttpServletRequest request, long limit) {
      super(request);
      this.limit = limit;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream = new Counting(super.getInputStream(), limit);
      }
      return stream;
    }

    @Override
    public BufferedReader getReader() throws IOException {
      if (reader == null) {
        String encoding = getCharacterEncoding();
        Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
        reader = new BufferedReader(new InputStreamReader(getInputStream(), charset));
      }
      return reader;
    }
  }

  /** Counts bytes read; the first byte over the limit throws. */
  private static final class Counting extends ServletInputStream {
    private final ServletInputStream in;
    private final long limit;
    private long read;

    Counting(ServletInputStream in, long limit) {
      this.in = in;
      this.limit = limit;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      // Never read more than one byte past the limit, so nothing beyond it is buffered.
      int n = in.read(buffer, offset, (int) Math.min(length, Math.max(1, limit + 1 - read)));
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) {
      read += n;
      if (read > limit) {
        throw new PayloadTooLargeException(limit);
      }
    }

    @Override
    public boolean isFinished() {
      return in.isFinished();
    }

    @Override
    public boolean isReady() {
      return in.isReady();
    }

    @Override
    public void setReadListener(ReadListener listener) {
      in.setReadListener(listener);
    }

    @Override
    public int available() throws IOException {
      return in.available();
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
