package io.activityservice.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbound guard on real HTTP servers. Every address in play is on loopback: "internal" here
 * means a loopback address the policy does not allow (127.0.0.2), so even a broken guard would send
 * nothing off this machine. Shows: a name that passed the check but resolves to a refused address
 * at connect time (DNS rebinding) is refused before any connection; the connection goes to the
 * checked address with the name in the Host header; redirects are not followed; error bodies never
 * reach the failure; refused targets are refused at configuration with the reason.
 */
class OutboundGuardTest {

  /** A webhook server on one loopback address that records each request's path and Host header. */
  private static final class Server {
    final HttpServer http;
    final List<String> requests = new CopyOnWriteArrayList<>();

    Server(String address, int port) throws Exception {
      http = HttpServer.create(new InetSocketAddress(address, port), 0);
      http.createContext(
          "/",
          x -> {
            x.getRequestBody().readAllBytes();
            requests.add(x.getRequestURI() + " host=" + x.getRequestHeaders().getFirst("Host"));
            String path = x.getRequestURI().getPath();
            if (path.startsWith("/redirect")) {
              x.getResponseHeaders().add("Location", x.getRequestURI().getQuery());
              x.sendResponseHeaders(302, -1);
            } else if (path.startsWith("/error")) {
              byte[] body = "internal detail: db password hunter2".getBytes(StandardCharsets.UTF_8);
              x.sendResponseHeaders(500, body.length);
              x.getResponseBody().write(body);
            } else {
              x.sendResponseHeaders(204, -1);
            }
            x.close();
          });
      http.start();
    }

    int port() {
      return http.getAddress().getPort();
    }
  }

  private Server allowed; // 127.0.0.1: inside the allowed network
  private Server internal; // 127.0.0.2, same port: outside it
  private Server other; // 127.0.0.1, another port: a redirect's target
  private final AtomicReference<String> rebindTo = new AtomicReference<>("127.0.0.1");
  private HttpChannelAdapter adapter;

  @BeforeEach
  void start() throws Exception {
    allowed = new Server("127.0.0.1", 0);
    internal = new Server("127.0.0.2", allowed.port());
    other = new Server("127.0.0.1", 0);
    HostResolver resolver =
        host ->
            switch (host) {
              case "rebind.test" -> new InetAddress[] {InetAddress.getByName(rebindTo.get())};
              case "hooks.corp.test" -> new InetAddress[] {InetAddress.getByName("127.0.0.2")};
              default -> throw new java.net.UnknownHostException(host);
            };
    adapter =
        new HttpChannelAdapter(
            new HttpChannelProperties(Duration.ofSeconds(2), Duration.ofSeconds(10)),
            new OutboundPolicy(List.of("127.0.0.1/32"), List.of("*.corp.test"), resolver));
  }

  @AfterEach
  void stop() {
    adapter.close();
    allowed.http.stop(0);
    internal.http.stop(0);
    other.http.stop(0);
  }

  private CompletableFuture<Void> send(String url) {
    OutboundChannel channel = adapter.openOutbound(ChannelUri.parse(url));
    return channel.send(ChannelAdapterContract.sampleEvent(1));
  }

  private static Throwable failure(CompletableFuture<?> f) throws Exception {
    try {
      f.get(15, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the send succeeded");
  }

  @Test
  void anAllowedTargetIsDelivered() throws Exception {
    send("http://127.0.0.1:" + allowed.port() + "/hook").get(15, TimeUnit.SECONDS);
    assertThat(allowed.requests).containsExactly("/hook host=127.0.0.1:" + allowed.port());
  }

  @Test
  void aNameThatRebindsToARefusedAddressIsRefusedBeforeConnecting() throws Exception {
    String url = "http://rebind.test:" + allowed.port() + "/hook?token=s3cret";
    adapter.validate(
        ChannelUri.parse(url)); // passes: the name resolves to the allowed 127.0.0.1 now

    send(url).get(15, TimeUnit.SECONDS); // connects to the checked address, with the name as Host
    assertThat(allowed.requests)
        .containsExactly("/hook?token=s3cret host=rebind.test:" + allowed.port());

    rebindTo.set("127.0.0.2"); // the DNS answer changes after the check
    Throwable refused = failure(send(url));
    assertThat(refused)
        .isInstanceOf(OutboundRefusedException.class)
        .hasMessage(
            "target refused by the outbound policy"); // generic: no resolved address in the failure
    assertThat(refused.getMessage()).doesNotContain("127.0.0.2");
    assertThat(((OutboundRefusedException) refused).reason())
        .isEqualTo(
            "rebind.test resolves to 127.0.0.2, a loopback address; allow it with"
                + " activity.outbound.allowed-networks (or the host with activity.outbound.allowed-hosts)");
    assertThat(internal.requests).as("nothing reached the refused address").isEmpty();
    assertThat(allowed.requests).hasSize(1);
    assertThatThrownBy(() -> adapter.validate(ChannelUri.parse(url)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("resolves to 127.0.0.2");
  }

  @Test
  void refusedAddressesAreNeverContacted() throws Exception {
    for (String url :
        List.of(
            "http://127.0.0.2:" + internal.port() + "/x",
            "http://[::1]:" + internal.port() + "/x",
            "http://[::ffff:127.0.0.2]:" + internal.port() + "/x",
            "http://2130706434:" + internal.port() + "/x",
            "http://0x7f.2:" + internal.port() + "/x")) {
      Throwable refused =
          failure(
              adapter
                  .webhookClient()
                  .post(new WebhookRequest(URI.create(url), "text/plain", new byte[0])));
      assertThat(refused).as(url).isInstanceOf(OutboundRefusedException.class);
    }
    assertThat(internal.requests).isEmpty();
  }

  @Test
  void redirectsAreNotFollowed() throws Exception {
    String internalTarget = "http://127.0.0.1:" + other.port() + "/latest/meta-data/";
    Throwable rejected =
        failure(send("http://127.0.0.1:" + allowed.port() + "/redirect?" + internalTarget));
    assertThat(rejected)
        .isInstanceOf(WebhookRejectedException.class)
        .hasMessageStartingWith("HTTP 302 from webhook");
    assertThat(allowed.requests).hasSize(1);
    assertThat(other.requests).as("the redirect's target was never requested").isEmpty();
  }

  @Test
  void errorAnswersNameTheStatusButNeverTheBodyOrTheSecrets() throws Exception {
    Throwable rejected =
        failure(send("http://user:pw@127.0.0.1:" + allowed.port() + "/error/Tk9aQ2x7Lm3?key=abc"));
    assertThat(rejected)
        .isInstanceOf(WebhookRejectedException.class)
        .hasMessage("HTTP 500 from webhook http://127.0.0.1:" + allowed.port() + "/error/*");
    assertThat(((WebhookRejectedException) rejected).status()).isEqualTo(500);
  }

  @Test
  void allowedHostsReachWhatTheyResolveTo() throws Exception {
    send("http://hooks.corp.test:" + internal.port() + "/hook").get(15, TimeUnit.SECONDS);
    assertThat(internal.requests).containsExactly("/hook host=hooks.corp.test:" + internal.port());
  }

  @Test
  void configuringAnInternalTargetIsRefusedWithTheReason() {
    assertThatThrownBy(
            () -> adapter.validate(ChannelUri.parse("http://169.254.169.254/latest/meta-data/")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("169.254.169.254 is a link-local address")
        .hasMessageEndingWith("allow it with activity.outbound.allowed-networks");
    assertThatThrownBy(() -> adapter.validate(ChannelUri.parse("http://10.0.0.1/hook")))
        .hasMessageContaining("a private address");
    assertThatThrownBy(() -> adapter.validate(ChannelUri.parse("https://[fd00::1]/hook")))
        .hasMessageContaining("unique local");
    assertThatThrownBy(() -> adapter.validate(ChannelUri.parse("http://0x7f.1/")))
        .hasMessageContaining("not a standard IPv4 address");
    assertThatThrownBy(() -> adapter.validate(ChannelUri.parse("http://h.example:0/")))
        .hasMessageContaining("invalid port");
    assertThatThrownBy(
            () -> adapter.validate(ChannelUri.parse("http://h.example/a b?token=s3cret")))
        .hasMessageContaining("not a valid URL")
        .hasMessageNotContaining("s3cret");
    adapter.validate(
        ChannelUri.parse("https://not-yet-in-dns.test/hook")); // checked again on every connection
  }

  @Test
  void requestsCarryTheirHeadersAndRefuseConnectionLevelOnes() throws Exception {
    int status =
        adapter
            .webhookClient()
            .post(
                new WebhookRequest(
                    URI.create("http://127.0.0.1:" + allowed.port() + "/h"),
                    "application/json",
                    "{}".getBytes(),
                    Map.of("X-Signature", "abc"),
                    Duration.ofSeconds(5)))
            .get(15, TimeUnit.SECONDS);
    assertThat(status).isEqualTo(204);
    assertThatThrownBy(
            () ->
                new WebhookRequest(
                    URI.create("http://127.0.0.1/h"),
                    "text/plain",
                    new byte[0],
                    Map.of("Host", "metadata.internal"),
                    null))
        .hasMessageContaining("'Host' may not be set");
  }
}
