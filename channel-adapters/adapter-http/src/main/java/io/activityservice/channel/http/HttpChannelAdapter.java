package io.activityservice.channel.http;

import io.activityservice.channel.AbstractChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Webhook channels: {@code http://…} and {@code https://…}. Outbound only; the service's own REST
 * API is the HTTP inbound side. One shared {@link HttpClient} (HTTP/1.1 keep-alive pool), with at
 * most {@link HttpChannelProperties#maxConcurrencyPerHost()} requests in flight per webhook host
 * (host and port) and a bounded queue per host behind it, so that a slow host delays only its own
 * deliveries.
 */
public final class HttpChannelAdapter extends AbstractChannelAdapter {

  private final HttpClient client;
  private final ExecutorService executor;
  private final Duration requestTimeout;
  private final PerHostLimiter limiter;

  /**
   * An adapter with the default per-host limits.
   *
   * @param connectTimeout time to open a connection
   * @param requestTimeout time for the whole request/response
   */
  public HttpChannelAdapter(Duration connectTimeout, Duration requestTimeout) {
    this(new HttpChannelProperties(connectTimeout, requestTimeout));
  }

  /** An adapter with the given timeouts and per-host limits. */
  public HttpChannelAdapter(HttpChannelProperties properties) {
    super("http");
    this.requestTimeout = properties.requestTimeout();
    Duration connectTimeout = properties.connectTimeout();
    // Virtual-thread-free fixed pool: the client is asynchronous, this only runs its callbacks.
    this.executor = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "http-channel");
      t.setDaemon(true);
      return t;
    });
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(connectTimeout)
        .executor(executor)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
    this.limiter = new PerHostLimiter(properties.maxConcurrencyPerHost(), properties.maxQueuedPerHost(), executor);
  }

  @Override
  public Set<String> schemes() {
    return Set.of("http", "https");
  }

  @Override
  public void validate(ChannelUri uri) {
    try {
      URI target = URI.create(uri.address());
      if (target.getHost() == null) {
        throw new IllegalArgumentException(uri.scheme() + " channel '" + uri + "' has no host");
      }
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(uri.scheme() + " channel")) {
        throw e;
      }
      throw new IllegalArgumentException(
          uri.scheme() + " channel '" + uri + "' is not a valid URL: " + e.getMessage(), e);
    }
  }

  @Override
  public OutboundChannel openOutbound(ChannelUri uri) {
    validate(uri);
    return register(onClose -> new WebhookOutboundChannel(client, limiter, uri, requestTimeout, onClose));
  }

  @Override
  public InboundChannel openInbound(ChannelUri uri, InboundSettings settings, InboundHandler handler) {
    throw new UnsupportedOperationException(
        "http channels are outbound only; producers POST to /api/v1/events instead");
  }

  /** Requests in flight now to one host ({@code host:port}). For tests and metrics. */
  int inFlight(String hostAndPort) {
    return limiter.inFlight(hostAndPort);
  }

  @Override
  protected void doClose() {
    executor.shutdown();
  }
}
