package io.activityservice.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.cloudevents.CloudEvent;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The shared adapter contract against a real local HTTP server. */
class HttpChannelAdapterContractTest extends ChannelAdapterContract {

  private static HttpChannelAdapter adapter;
  private static final AtomicInteger paths = new AtomicInteger();

  @BeforeAll
  static void start() {
    // The receivers run on loopback, which the default policy refuses.
    adapter =
        new HttpChannelAdapter(
            new HttpChannelProperties(Duration.ofSeconds(2), Duration.ofSeconds(5)),
            OutboundPolicy.allowing("127.0.0.0/8"));
  }

  @AfterAll
  static void stop() {
    adapter.close();
  }

  @Override
  protected ChannelAdapter adapter() {
    return adapter;
  }

  @Override
  protected ChannelUri freshChannel() {
    return ChannelUri.parse("http://127.0.0.1:" + port + "/hook/" + paths.incrementAndGet());
  }

  @Override
  protected ChannelUri invalidChannel() {
    return ChannelUri.parse("http:not a url");
  }

  @Override
  protected boolean supportsRedelivery() {
    return false;
  }

  /** Webhooks have no inbound channel: the test's receiver is an HTTP server without send times. */
  @Override
  protected boolean givesSendTime() {
    return false;
  }

  @Override
  protected ChannelUri freshPartitionedChannel() {
    return org.junit.jupiter.api.Assumptions.abort(
        "webhooks ignore partition keys: a webhook URL has one receiver, no competing consumers");
  }

  private static int port;
  private static HttpServer server;

  @BeforeAll
  static void bindPort() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    port = server.getAddress().getPort();
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
  }

  @AfterAll
  static void stopServer() {
    server.stop(0);
  }

  /** A webhook receiver: 204 on ack, 503 on nack. Stops answering (404) when closed. */
  @Override
  protected AutoCloseable openReceiver(
      ChannelUri uri, InboundSettings settings, InboundHandler handler) {
    String path = java.net.URI.create(uri.address()).getPath();
    server.createContext(
        path,
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          CompletableFuture<Integer> status = new CompletableFuture<>();
          handler.onEvent(
              CloudEventJson.decode(body),
              new Acknowledgement() {
                @Override
                public void ack() {
                  status.complete(204);
                }

                @Override
                public void nack(Throwable cause) {
                  status.complete(503);
                }
              });
          exchange.sendResponseHeaders(status.join(), -1);
          exchange.close();
        });
    return () -> server.removeContext(path);
  }

  @Test
  void nonSuccessStatusFailsTheSend() {
    ChannelUri uri = freshChannel();
    openReceiverForTest(uri);
    CompletableFuture<Void> send = adapter.openOutbound(uri).send(sampleEvent(1));
    try {
      send.get(10, TimeUnit.SECONDS);
      org.junit.jupiter.api.Assertions.fail("a 503 must fail the send");
    } catch (ExecutionException e) {
      assertThat(e.getCause())
          .isInstanceOf(WebhookRejectedException.class)
          .hasMessageContaining("503");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void unreachableWebhookFailsTheSend() {
    CompletableFuture<Void> send =
        adapter.openOutbound(ChannelUri.parse("http://127.0.0.1:1/nothing")).send(sampleEvent(1));
    assertThat(send).failsWithin(Duration.ofSeconds(10));
  }

  private void openReceiverForTest(ChannelUri uri) {
    openReceiver(
        uri, (CloudEvent e, Acknowledgement ack) -> ack.nack(new IllegalStateException("no")));
  }
}
