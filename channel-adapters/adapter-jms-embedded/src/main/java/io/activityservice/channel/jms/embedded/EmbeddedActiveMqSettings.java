package io.activityservice.channel.jms.embedded;

/**
 * Where the embedded broker listens and stores ({@code activity.channels.jms.embedded-broker.*},
 * the keys the jms adapter documents). Other processes can reach it on {@code tcp://host:port}.
 *
 * @param host address the TCP connector binds to (default {@code 127.0.0.1}: local only)
 * @param port TCP port (default 61616; 0 picks a free port)
 * @param dataDir directory of the KahaDB message store (default {@code ./data/activemq})
 * @param persistent whether messages survive a restart (KahaDB store; default true)
 */
public record EmbeddedActiveMqSettings(
    String host, Integer port, String dataDir, Boolean persistent) {

  /** The settings' prefix. */
  public static final String PREFIX = "activity.channels.jms.embedded-broker";

  public EmbeddedActiveMqSettings {
    host = host == null || host.isBlank() ? "127.0.0.1" : host.trim();
    port = port == null ? 61616 : port;
    dataDir = dataDir == null || dataDir.isBlank() ? "./data/activemq" : dataDir;
    persistent = persistent == null || persistent;
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(
          PREFIX + ".port is " + port + "; use a TCP port 1-65535, or 0 for a free one");
    }
  }
}
