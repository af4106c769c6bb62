package io.activityservice.channel.http;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.activityservice.channel.ChannelUri;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A real HTTP server on a free loopback port answering {@code /hook}, and an adapter allowed to
 * reach loopback: the receiving end of the webhook channel's tests. Close it after each test.
 */
final class LoopbackHook implements AutoCloseable {

  final HttpServer server;
  final HttpChannelAdapter adapter;

  LoopbackHook(HttpHandler handler) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/hook", handler);
    server.start();
    adapter =
        new HttpChannelAdapter(
            new HttpChannelProperties(Duration.ofSeconds(2), Duration.ofSeconds(30), 4, 10),
            OutboundPolicy.allowing("127.0.0.0/8"));
  }

  /** The hook's channel URI. */
  ChannelUri uri() {
    return ChannelUri.parse("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
  }

  @Override
  public void close() {
    adapter.close();
    server.stop(0);
  }
}
