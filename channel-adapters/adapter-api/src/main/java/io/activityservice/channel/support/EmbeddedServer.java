package io.activityservice.channel.support;

import java.net.URI;

/**
 * A server started inside the service for a transport, so that the quick start needs no
 * installation (the {@code adapter-jms-embedded} and {@code adapter-sqs-embedded} modules). A
 * transport adapter's auto-configuration connects to the one of its {@link #transport()} when no
 * external endpoint is configured; the server modules and the adapters know each other only through
 * this interface, so a deployment with external brokers runs without the server modules on its
 * class path.
 */
public interface EmbeddedServer extends AutoCloseable {

  /**
   * The transport the server speaks: the scheme of its channels, e.g. {@code "jms"} or {@code
   * "sqs"}.
   */
  String transport();

  /**
   * Where clients connect, e.g. {@code tcp://127.0.0.1:61616} or {@code http://127.0.0.1:9324},
   * with the actual port.
   */
  URI endpoint();

  /** Stops the server and waits for it. Never throws. */
  @Override
  void close();
}
