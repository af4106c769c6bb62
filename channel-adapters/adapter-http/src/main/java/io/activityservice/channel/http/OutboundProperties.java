package io.activityservice.channel.http;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Exceptions to the outbound policy ({@code activity.outbound.*}): which internal targets webhooks,
 * webhook dead-letter channels and the rules' {@code webhook} action may reach. By default none:
 * loopback, private, link-local (cloud metadata), CGNAT and the other non-public ranges are refused
 * (see {@link OutboundPolicy}).
 *
 * @param allowedNetworks address ranges allowed although internal, as CIDRs, e.g. {@code
 *     10.20.0.0/16}, {@code fd12:3456::/48}, or a single address such as {@code 192.168.1.5}; IPv4
 *     in dotted decimal. {@code 127.0.0.0/8} allows loopback webhooks for local trials
 * @param allowedHosts host names allowed whatever they resolve to: exact ({@code
 *     hooks.internal.example}) or {@code *.internal.example} for every subdomain (not the name
 *     itself); no addresses
 */
@ConfigurationProperties("activity.outbound")
public record OutboundProperties(
    @DefaultValue List<String> allowedNetworks, @DefaultValue List<String> allowedHosts) {

  public OutboundProperties {
    allowedNetworks = allowedNetworks == null ? List.of() : List.copyOf(allowedNetworks);
    allowedHosts = allowedHosts == null ? List.of() : List.copyOf(allowedHosts);
  }

  /**
   * The policy these exceptions describe.
   *
   * @throws IllegalArgumentException naming the setting and the bad entry
   */
  public OutboundPolicy toPolicy(HostResolver resolver) {
    return new OutboundPolicy(allowedNetworks, allowedHosts, resolver);
  }
}
