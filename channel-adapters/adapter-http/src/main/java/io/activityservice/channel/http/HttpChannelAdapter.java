package io.activityservice.channel.http;

import io.activityservice.channel.AbstractChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.Redaction;
import io.activityservice.channel.WirePreview;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Webhook channels: {@code http://…} and {@code https://…}. Outbound only; the service's own REST
 * API is the HTTP inbound side. One shared client ({@link WebhookClient}, HTTP/1.1 keep-alive pool)
 * with at most {@link HttpChannelProperties#maxConcurrencyPerHost()} requests in flight per webhook
 * host (host and port) and a bounded queue per host behind it, so that a slow host delays only its
 * own deliveries. Every target passes the {@link OutboundPolicy}: when it is configured ({@link
 * #validate}) and on the addresses of every connection.
 */
public final class HttpChannelAdapter extends AbstractChannelAdapter {

  private final GuardedHttpClient client;

  /**
   * An adapter with the default per-host limits that reaches public addresses only.
   *
   * @param connectTimeout time to open a connection
   * @param requestTimeout time for the whole request/response
   */
  public HttpChannelAdapter(Duration connectTimeout, Duration requestTimeout) {
    this(new HttpChannelProperties(connectTimeout, requestTimeout), OutboundPolicy.denyInternal());
  }

  /** An adapter with the given timeouts and per-host limits that reaches public addresses only. */
  public HttpChannelAdapter(HttpChannelProperties properties) {
    this(properties, OutboundPolicy.denyInternal());
  }

  /** An adapter with the given timeouts, per-host limits and outbound policy. */
  public HttpChannelAdapter(HttpChannelProperties properties, OutboundPolicy policy) {
    super("http");
    this.client = new GuardedHttpClient(properties, policy);
  }

  /**
   * {@inheritDoc} Here: structured JSON (the default), the HTTP binding's binary mode, or the data
   * alone as the body, with its content type.
   */
  @Override
  public Set<DeliveryFormat> formats() {
    return Set.of(DeliveryFormat.STRUCTURED, DeliveryFormat.BINARY, DeliveryFormat.DATA);
  }

  /** {@inheritDoc} Here: the request's content type, {@code ce-*} headers and body. */
  @Override
  public WirePreview preview(ChannelUri uri, OutboundEvent event) {
    if (event.format() != DeliveryFormat.DATA && event.format() != DeliveryFormat.BINARY) {
      return WirePreview.structured(event);
    }
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("content-type", WebhookOutboundChannel.dataContentType(event.event()));
    if (event.format() == DeliveryFormat.BINARY) {
      headers.putAll(event.encoded(HttpBinaryMode.HEADERS));
    }
    return new WirePreview(headers, DeliveryFormat.httpBody(event));
  }

  @Override
  public Set<String> schemes() {
    return Set.of("http", "https");
  }

  /**
   * Checks the URL and its host: a host that is, or now resolves to, an internal address is
   * refused, naming the address and the setting that would allow it. A name that does not resolve
   * (yet), or not within the connect timeout, passes: it is checked again before every connection.
   */
  @Override
  public void validate(ChannelUri uri) {
    URI target = parse(uri);
    try {
      client.check(OutboundPolicy.host(target));
    } catch (OutboundRefusedException e) {
      throw new IllegalArgumentException(e.reason());
    }
  }

  /** The URL, checked for form only (no lookup). */
  private static URI parse(ChannelUri uri) {
    String shown = Redaction.uri(uri);
    URI target;
    try {
      target = new URI(uri.address());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          uri.scheme()
              + " channel '"
              + shown
              + "' is not a valid URL: "
              + e.getReason()
              + " at index "
              + e.getIndex());
    }
    if (target.getPort() == 0 || target.getPort() > 65535) {
      throw new IllegalArgumentException(
          uri.scheme() + " channel '" + shown + "' has an invalid port; use 1 to 65535");
    }
    try {
      OutboundPolicy.host(target);
    } catch (OutboundRefusedException e) {
      throw new IllegalArgumentException(e.reason());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          uri.scheme()
              + " channel '"
              + shown
              + "' "
              + e.getMessage()
              + "; expected e.g. https://hooks.example.com/events");
    }
    return target;
  }

  /**
   * Opens a channel after checking the URL's form only: the policy is applied to every send (and
   * was applied when the target was configured), so opening never waits for DNS.
   */
  @Override
  public OutboundChannel openOutbound(ChannelUri uri) {
    parse(uri);
    return register(onClose -> new WebhookOutboundChannel(client, uri, onClose));
  }

  @Override
  public InboundChannel openInbound(
      ChannelUri uri, InboundSettings settings, InboundHandler handler) {
    throw new UnsupportedOperationException(
        "http channels are outbound only; producers POST to /api/v1/events instead");
  }

  /**
   * The client webhook channels post through: for other senders of webhooks, such as the rules'
   * action.
   */
  public WebhookClient webhookClient() {
    return client;
  }

  /** The policy every target passes. */
  public OutboundPolicy policy() {
    return client.policy();
  }

  /** Requests in flight now to one host ({@code host:port}). For tests and metrics. */
  int inFlight(String hostAndPort) {
    return client.inFlight(hostAndPort);
  }

  @Override
  protected void doClose() {
    client.close();
  }
}
