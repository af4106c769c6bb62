package io.activityservice.channel.jms.embedded;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The embedded ActiveMQ broker ({@code activity.channels.jms.embedded-broker.*}), started only when
 * {@code activity.channels.jms.broker-url} is empty. Other processes can reach it on {@code
 * tcp://host:port}. This module alone binds these keys (the jms adapter does not read them).
 *
 * @param host address the TCP connector binds to
 * @param port TCP port (0 picks a free port)
 * @param dataDir directory of the KahaDB message store
 * @param persistent whether messages survive a restart (KahaDB store; default true)
 */
@ConfigurationProperties(EmbeddedActiveMqProperties.PREFIX)
public record EmbeddedActiveMqProperties(
    @DefaultValue("127.0.0.1") String host,
    @DefaultValue("61616") Integer port,
    @DefaultValue("./data/activemq") String dataDir,
    @DefaultValue("true") Boolean persistent) {

  /** The settings' prefix. */
  public static final String PREFIX = "activity.channels.jms.embedded-broker";

  public EmbeddedActiveMqProperties {
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
