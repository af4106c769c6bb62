package io.activityservice.channel.http;

import io.activityservice.channel.Redaction;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.channel.support.Futures;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.config.TlsConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.Message;
import org.apache.hc.core5.http.Method;
import org.apache.hc.core5.http.message.BasicHttpRequest;
import org.apache.hc.core5.http.nio.entity.BasicAsyncEntityProducer;
import org.apache.hc.core5.http.nio.entity.DiscardingEntityConsumer;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.apache.hc.core5.http.nio.support.BasicResponseConsumer;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one guarded way out for webhooks (Apache HttpClient 5, asynchronous). Each request:
 *
 * <ol>
 *   <li>waits for a slot of its host ({@link PerHostLimiter});
 *   <li>resolves the host on the resolver threads (never on the caller's thread) and lets the
 *       {@link OutboundPolicy} pick the addresses that may be used;
 *   <li>connects to exactly such an address: the target {@link HttpHost} carries it, so the client
 *       does no lookup of its own, the TLS name and {@code Host} header stay the host name, and
 *       pooled connections are keyed by that address (a connection to an address checked earlier is
 *       never reused for a name that now resolves elsewhere);
 *   <li>follows no redirect, reads no response body, and reports only the status.
 * </ol>
 *
 * The client's own DNS hook goes through the policy as well, should any path ever reach it
 * unpinned.
 */
final class GuardedHttpClient implements WebhookClient, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(GuardedHttpClient.class);

  /** How often one host's refusals are logged at most. */
  private static final long REFUSAL_LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(5);

  private static final int RESOLVER_THREADS = 4;

  /** Largest response body {@link #exchange(WebhookRequest, int)} reads. */
  static final int MAX_BODY_BYTES = 1 << 20;

  private static final int RESOLVER_QUEUE = 10_000;

  private final OutboundPolicy policy;
  private final PerHostLimiter limiter;
  private final Duration connectTimeout;
  private final Duration requestTimeout;
  private final ExecutorService callbacks;
  private final ThreadPoolExecutor resolvers;
  private final ScheduledExecutorService timer;
  private final CloseableHttpAsyncClient http;
  private final Map<String, Long> refusalsLogged = new ConcurrentHashMap<>();

  GuardedHttpClient(HttpChannelProperties properties, OutboundPolicy policy) {
    this.policy = policy;
    this.connectTimeout = properties.connectTimeout();
    this.requestTimeout = properties.requestTimeout();
    // Futures complete here, not on the client's I/O threads, whatever their callers chain onto
    // them.
    this.callbacks = Executors.newFixedThreadPool(2, DaemonThreads.factory("http-channel"));
    this.resolvers =
        new ThreadPoolExecutor(
            RESOLVER_THREADS,
            RESOLVER_THREADS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(RESOLVER_QUEUE),
            DaemonThreads.factory("http-resolver"));
    this.resolvers.allowCoreThreadTimeOut(true);
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.factory("http-timeout"));
    t.setRemoveOnCancelPolicy(true);
    this.timer = t;
    this.limiter =
        new PerHostLimiter(
            properties.maxConcurrencyPerHost(), properties.maxQueuedPerHost(), callbacks);
    PoolingAsyncClientConnectionManager connections =
        PoolingAsyncClientConnectionManagerBuilder.create()
            // Per-route bound only (a route is host + address); the limiter bounds requests per
            // host.
            .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.LAX)
            .setMaxConnPerRoute(properties.maxConcurrencyPerHost() * 2)
            .setDefaultConnectionConfig(
                ConnectionConfig.custom()
                    .setConnectTimeout(Timeout.of(connectTimeout))
                    .setTimeToLive(TimeValue.ofMinutes(5))
                    .build())
            .setDefaultTlsConfig(
                TlsConfig.custom().setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_1).build())
            .setDnsResolver(new PolicyDnsResolver(policy))
            .build();
    this.http =
        HttpAsyncClients.custom()
            .setConnectionManager(connections)
            .setIOReactorConfig(IOReactorConfig.custom().setIoThreadCount(2).build())
            .disableRedirectHandling()
            .disableAutomaticRetries() // the subscription's retry policy decides
            .disableCookieManagement()
            .disableAuthCaching()
            .disableConnectionState()
            .evictIdleConnections(TimeValue.ofSeconds(30))
            .evictExpiredConnections()
            .setUserAgent("activity-service")
            .build();
    this.http.start();
  }

  OutboundPolicy policy() {
    return policy;
  }

  int inFlight(String hostAndPort) {
    return limiter.inFlight(hostAndPort);
  }

  @Override
  public CompletableFuture<Integer> post(WebhookRequest request) {
    return exchange(request, 0).thenApply(WebhookResponse::status);
  }

  @Override
  public CompletableFuture<WebhookResponse> exchange(WebhookRequest request, int maxBodyBytes) {
    try {
      if (maxBodyBytes < 0 || maxBodyBytes > MAX_BODY_BYTES) {
        throw new IllegalArgumentException("maxBodyBytes must be 0 to " + MAX_BODY_BYTES);
      }
      URI target = request.target();
      String host = OutboundPolicy.host(target);
      return limiter.submit(hostAndPort(target), () -> exchange(request, host, maxBodyBytes));
    } catch (OutboundRefusedException e) {
      logRefusal(request.target(), e);
      return CompletableFuture.failedFuture(e);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Checks a host as at connect time, waiting at most the connect timeout for DNS; for {@code
   * validate}.
   *
   * @return normally if the host may be reached, or if it does not resolve (yet) or not in time: it
   *     is checked again before every connection
   * @throws OutboundRefusedException if it is refused
   */
  void check(String host) {
    try {
      resolve(host).get(connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof OutboundRefusedException refused) {
        throw refused;
      }
      // Unknown host, or no resolver thread: decided at connect time.
    } catch (TimeoutException e) {
      // Slow DNS: decided at connect time.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private CompletableFuture<WebhookResponse> exchange(
      WebhookRequest request, String host, int maxBody) {
    CompletableFuture<WebhookResponse> result = new CompletableFuture<>();
    Duration timeout = request.timeout() != null ? request.timeout() : requestTimeout;
    AtomicReference<Future<?>> call = new AtomicReference<>();
    ScheduledFuture<?> deadline;
    try {
      deadline =
          timer.schedule(
              () ->
                  result.completeExceptionally(
                      new HttpTimeoutException("webhook did not answer within " + timeout)),
              timeout.toNanos(),
              TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(closed(e));
    }
    result.whenComplete(
        (status, error) -> {
          deadline.cancel(false);
          Future<?> running = call.get();
          if (error != null && running != null) {
            running.cancel(true); // timed out or cancelled: abort the request
          }
        });
    resolve(host)
        .whenComplete(
            (addresses, error) -> {
              if (error != null) {
                Throwable cause = Futures.unwrap(error);
                if (cause instanceof OutboundRefusedException refused) {
                  logRefusal(request.target(), refused);
                }
                result.completeExceptionally(cause);
                return;
              }
              if (result.isDone()) {
                return;
              }
              try {
                call.set(send(request, host, addresses.get(0), timeout, maxBody, result));
              } catch (RuntimeException e) {
                result.completeExceptionally(e);
              }
              Future<?> running = call.get();
              if (result.isDone() && running != null) {
                running.cancel(true);
              }
            });
    return result;
  }

  private Future<?> send(
      WebhookRequest request,
      String host,
      InetAddress address,
      Duration timeout,
      int maxBody,
      CompletableFuture<WebhookResponse> result) {
    URI target = request.target();
    String scheme = target.getScheme().toLowerCase(Locale.ROOT);
    HttpHost pinned = new HttpHost(scheme, address, host, port(target));
    String path =
        target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
    BasicHttpRequest post =
        new BasicHttpRequest(
            Method.POST,
            pinned,
            target.getRawQuery() == null ? path : path + "?" + target.getRawQuery());
    request.headers().forEach(post::addHeader);
    HttpClientContext context = HttpClientContext.create();
    context.setRequestConfig(
        RequestConfig.custom()
            .setRedirectsEnabled(false)
            .setResponseTimeout(Timeout.of(timeout))
            .build());
    return http.execute(
        pinned,
        new BasicRequestProducer(
            post,
            new BasicAsyncEntityProducer(request.body(), ContentType.parse(request.contentType()))),
        new BasicResponseConsumer<>(
            maxBody > 0 ? new BoundedBodyConsumer(maxBody) : new DiscardingEntityConsumer<>()),
        null,
        context,
        new FutureCallback<Message<HttpResponse, byte[]>>() {
          @Override
          public void completed(Message<HttpResponse, byte[]> response) {
            HttpResponse head = response.getHead();
            org.apache.hc.core5.http.Header retryAfter = head.getFirstHeader("Retry-After");
            byte[] body = response.getBody();
            settle(
                result,
                new WebhookResponse(
                    head.getCode(),
                    retryAfter == null ? null : retryAfter.getValue(),
                    body == null ? new byte[0] : body),
                null);
          }

          @Override
          public void failed(Exception e) {
            settle(result, null, e);
          }

          @Override
          public void cancelled() {
            settle(result, null, new CancellationException("webhook request cancelled"));
          }
        });
  }

  /** Completes a request's future off the client's I/O threads. */
  private void settle(
      CompletableFuture<WebhookResponse> result, WebhookResponse status, Throwable error) {
    Runnable complete =
        () -> {
          if (error == null) {
            result.complete(status);
          } else {
            result.completeExceptionally(error);
          }
        };
    try {
      callbacks.execute(complete);
    } catch (RejectedExecutionException e) {
      complete.run(); // closing: complete here rather than never
    }
  }

  /**
   * The usable addresses of a host: at once for literals and localhost, else on the resolver
   * threads.
   */
  private CompletableFuture<List<InetAddress>> resolve(String host) {
    if (!policy.needsLookup(host)) {
      try {
        return CompletableFuture.completedFuture(policy.addresses(host));
      } catch (UnknownHostException | RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    try {
      return CompletableFuture.supplyAsync(
          () -> {
            try {
              return policy.addresses(host);
            } catch (UnknownHostException e) {
              throw new CompletionException(unknown(host, e));
            }
          },
          resolvers);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(
          resolvers.isShutdown()
              ? closed(e)
              : new RejectedExecutionException(
                  "too many webhook host names waiting to be resolved ("
                      + RESOLVER_QUEUE
                      + "); send refused",
                  e));
    }
  }

  private static UnknownHostException unknown(String host, UnknownHostException cause) {
    UnknownHostException e = new UnknownHostException("webhook host " + host + " does not resolve");
    e.initCause(cause);
    return e;
  }

  private static IllegalStateException closed(Exception cause) {
    return new IllegalStateException(
        "the http channel adapter was closed before the event was sent", cause);
  }

  /**
   * Logs why a target was refused, at most once per host every few minutes (each retry is refused
   * again).
   */
  private void logRefusal(URI target, OutboundRefusedException e) {
    String key =
        target.getRawAuthority() == null ? "" : target.getHost() == null ? "?" : target.getHost();
    long now = System.nanoTime();
    Long last = refusalsLogged.get(key);
    if (last != null && now - last < REFUSAL_LOG_INTERVAL_NANOS) {
      return;
    }
    if (refusalsLogged.size() > 1000) {
      refusalsLogged.clear();
    }
    refusalsLogged.put(key, now);
    log.warn(
        "webhook {} refused by the outbound policy: {}",
        Redaction.uri(target.toString()),
        e.reason());
  }

  private static int port(URI target) {
    return target.getPort() >= 0
        ? target.getPort()
        : "https".equalsIgnoreCase(target.getScheme()) ? 443 : 80;
  }

  /** The limiter's key: host and port, without user info, path or query (they may hold secrets). */
  static String hostAndPort(URI target) {
    String host =
        target.getHost() == null ? String.valueOf(target.getRawAuthority()) : target.getHost();
    return host.toLowerCase(Locale.ROOT) + ":" + port(target);
  }

  @Override
  public void close() {
    // Let the I/O threads wind their sessions down themselves first (closing under them races their
    // loops).
    http.initiateShutdown();
    try {
      http.awaitShutdown(TimeValue.ofSeconds(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    http.close(CloseMode.IMMEDIATE);
    resolvers.shutdownNow();
    timer.shutdownNow();
    callbacks.shutdown();
  }

  /**
   * The client's own DNS hook: the policy's answer, should a request ever reach it without a pinned
   * address.
   */
  private record PolicyDnsResolver(OutboundPolicy policy) implements DnsResolver {
    @Override
    public InetAddress[] resolve(String host) throws UnknownHostException {
      String h = host.toLowerCase(Locale.ROOT);
      h = h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
      try {
        return policy.addresses(h).toArray(InetAddress[]::new);
      } catch (OutboundRefusedException e) {
        throw new UnknownHostException(OutboundRefusedException.MESSAGE);
      }
    }

    @Override
    public String resolveCanonicalHostname(String host) {
      return host;
    }
  }
}
