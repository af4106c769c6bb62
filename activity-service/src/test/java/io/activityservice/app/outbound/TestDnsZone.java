package io.activityservice.app.outbound;

import io.activityservice.channel.http.HostResolver;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A DNS zone the tests control: the outbound policy resolves names through it (the
 * auto-configuration picks a {@link HostResolver} bean up), so a test can make a name point at an
 * internal address, or change its answer between the check at creation and the connection (DNS
 * rebinding). Names not in the zone do not resolve.
 */
@TestConfiguration(proxyBeanMethods = false)
public class TestDnsZone {

  /** Name to address literal; tests add their own (unique) names. */
  public static final Map<String, String> ANSWERS =
      new ConcurrentHashMap<>(
          Map.of(
              "intranet.test", "10.1.2.3",
              "metadata.test", "169.254.169.254"));

  @Bean
  HostResolver testDnsZone() {
    return host -> {
      String address = ANSWERS.get(host);
      if (address == null) {
        throw new UnknownHostException(host);
      }
      return new InetAddress[] {InetAddress.getByName(address)}; // a literal: no lookup
    };
  }
}
