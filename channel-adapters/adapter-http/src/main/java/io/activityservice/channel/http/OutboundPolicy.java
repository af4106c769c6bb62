package io.activityservice.channel.http;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which hosts webhooks may reach: the guard against server-side request forgery (SSRF). A target is
 * refused when it is, or resolves to, an address that is not on the public internet — loopback,
 * private, link-local (cloud metadata endpoints such as {@code 169.254.169.254} and {@code
 * 169.254.170.2}), CGNAT, benchmarking, documentation, multicast, broadcast, unspecified, reserved,
 * and their IPv6, IPv4-mapped, NAT64 and 6to4 forms (see {@link AddressClassifier}) — unless an
 * exception opens it: an address inside {@code activity.outbound.allowed-networks} (CIDR list), or
 * a host listed in {@code activity.outbound.allowed-hosts} (exact names or {@code *.example.com},
 * which matches subdomains only; such a host may resolve to anything).
 *
 * <p>Hosts that are numbers in a notation other than strict dotted decimal ({@code 2130706433},
 * {@code 0x7f.1}, {@code 017700000001}, {@code 127.1}) are refused whatever they denote: resolvers
 * read them differently (the JDK reads {@code 0177.0.0.1} as 177.0.0.1, glibc as 127.0.0.1), which
 * is how deny lists get bypassed. {@code localhost} and {@code *.localhost} are loopback by
 * definition (RFC 6761) and are never looked up.
 *
 * <p>The policy is applied twice: when a webhook is configured ({@link
 * HttpChannelAdapter#validate}) and before every connection, on the addresses the connection then
 * uses (DNS rebinding cannot slip an internal address in between). Immutable and thread-safe;
 * {@link #addresses(String)} may block on DNS.
 */
public final class OutboundPolicy {

  /** The setting that opens address ranges. */
  public static final String ALLOWED_NETWORKS = "activity.outbound.allowed-networks";

  /** The setting that opens host names. */
  public static final String ALLOWED_HOSTS = "activity.outbound.allowed-hosts";

  private static final Pattern HOST_PATTERN =
      Pattern.compile(
          "(\\*\\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?" + "(\\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*");

  private final List<Cidr> allowedNetworks;
  private final Set<String> exactHosts = new LinkedHashSet<>();
  private final List<String> hostSuffixes = new ArrayList<>();
  private final HostResolver resolver;

  /**
   * @param allowedNetworks CIDR ranges whose addresses are allowed although internal, e.g. {@code
   *     10.1.0.0/16}; {@code null} for none
   * @param allowedHosts host names allowed whatever they resolve to: exact, or {@code
   *     *.example.com} for every subdomain; {@code null} for none
   * @param resolver how host names are resolved
   * @throws IllegalArgumentException naming the setting and the bad entry
   */
  public OutboundPolicy(
      List<String> allowedNetworks, List<String> allowedHosts, HostResolver resolver) {
    this.resolver = Objects.requireNonNull(resolver, "resolver");
    List<Cidr> networks = new ArrayList<>();
    for (String n : allowedNetworks == null ? List.<String>of() : allowedNetworks) {
      try {
        networks.add(Cidr.parse(n));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(ALLOWED_NETWORKS + ": " + e.getMessage());
      }
    }
    this.allowedNetworks = List.copyOf(networks);
    for (String h : allowedHosts == null ? List.<String>of() : allowedHosts) {
      String host = h == null ? "" : h.trim().toLowerCase(Locale.ROOT);
      host = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
      String bare = host.startsWith("*.") ? host.substring(2) : host;
      if (AddressClassifier.literal(bare) != null || AddressClassifier.isLooseNumeric(bare)) {
        throw new IllegalArgumentException(
            ALLOWED_HOSTS
                + ": '"
                + h
                + "' is an address; put it in "
                + ALLOWED_NETWORKS
                + " instead, e.g. "
                + bare
                + (bare.contains(":") ? "/128" : "/32"));
      }
      if (!HOST_PATTERN.matcher(host).matches()) {
        throw new IllegalArgumentException(
            ALLOWED_HOSTS
                + ": '"
                + h
                + "' is not a host name; write e.g."
                + " hooks.internal.example or *.internal.example (subdomains only)");
      }
      if (host.startsWith("*.")) {
        hostSuffixes.add(host.substring(1));
      } else {
        exactHosts.add(host);
      }
    }
  }

  /** No exceptions: nothing internal is reachable. The system resolver. */
  public static OutboundPolicy denyInternal() {
    return new OutboundPolicy(List.of(), List.of(), HostResolver.SYSTEM);
  }

  /**
   * A policy that also allows the given networks, e.g. {@code allowing("127.0.0.0/8")} for local
   * trials.
   */
  public static OutboundPolicy allowing(String... networks) {
    return new OutboundPolicy(List.of(networks), List.of(), HostResolver.SYSTEM);
  }

  /** The same exceptions with another resolver. */
  public OutboundPolicy withResolver(HostResolver other) {
    return new OutboundPolicy(this, other);
  }

  private OutboundPolicy(OutboundPolicy from, HostResolver resolver) {
    this.resolver = Objects.requireNonNull(resolver, "resolver");
    this.allowedNetworks = from.allowedNetworks;
    this.exactHosts.addAll(from.exactHosts);
    this.hostSuffixes.addAll(from.hostSuffixes);
  }

  /**
   * The host of a webhook URL as the policy sees it: lower case, without a trailing dot, IPv6
   * literals without brackets.
   *
   * @throws IllegalArgumentException if the URL has no usable host
   * @throws OutboundRefusedException if the host is a number in a non-standard notation or an IPv6
   *     literal with a zone
   */
  public static String host(URI target) {
    String host = target.getHost();
    if (host == null) {
      String authority = target.getRawAuthority();
      if (authority != null) {
        String bare = authority.substring(authority.lastIndexOf('@') + 1);
        bare =
            bare.indexOf(':') >= 0 && !bare.startsWith("[")
                ? bare.substring(0, bare.indexOf(':'))
                : bare;
        if (AddressClassifier.isLooseNumeric(bare)) {
          throw new OutboundRefusedException(nonStandard(bare));
        }
      }
      throw new IllegalArgumentException("has no valid host");
    }
    host = host.toLowerCase(Locale.ROOT);
    if (host.startsWith("[")) {
      if (host.indexOf('%') >= 0) {
        throw new OutboundRefusedException(
            host + " has a zone id; zones (link-local interfaces) are not reachable");
      }
      return host.substring(1, host.length() - 1);
    }
    if (host.endsWith(".")) {
      host = host.substring(0, host.length() - 1);
    }
    if (host.isEmpty() || host.endsWith(".")) {
      throw new IllegalArgumentException("has no valid host");
    }
    if (AddressClassifier.isLooseNumeric(host)) {
      throw new OutboundRefusedException(nonStandard(host));
    }
    return host;
  }

  private static String nonStandard(String host) {
    String value = AddressClassifier.looseValue(host);
    return "'"
        + host
        + "' is not a standard IPv4 address"
        + (value == null ? "" : " (some resolvers read it as " + value + ")")
        + "; write IPv4 addresses as four decimal numbers, e.g. 203.0.113.7";
  }

  /**
   * Whether checking {@code host} needs a DNS lookup (it is a name that is neither {@code
   * localhost} nor an address literal).
   *
   * @param host as returned by {@link #host(URI)}
   */
  public boolean needsLookup(String host) {
    return AddressClassifier.literal(host) == null && !isLocalhost(host);
  }

  /**
   * The addresses a connection to {@code host} may use, in the resolver's order: all of them for an
   * allowed host, else those that are public or inside an allowed network. Blocks while the name is
   * resolved.
   *
   * @param host as returned by {@link #host(URI)}
   * @throws OutboundRefusedException if no address may be used; its reason names the first refused
   *     one
   * @throws UnknownHostException if the name does not resolve
   */
  public List<InetAddress> addresses(String host) throws UnknownHostException {
    byte[] literal = AddressClassifier.literal(host);
    InetAddress[] candidates;
    boolean name = literal == null;
    if (!name) {
      candidates = new InetAddress[] {InetAddress.getByAddress(literal)};
    } else if (isLocalhost(host)) {
      candidates =
          new InetAddress[] {
            InetAddress.getByAddress(new byte[] {127, 0, 0, 1}),
            InetAddress.getByAddress(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
          };
    } else {
      candidates = resolver.resolve(host);
      if (candidates == null || candidates.length == 0) {
        throw new UnknownHostException(host);
      }
      if (isAllowedHost(host)) {
        List<InetAddress> all = new ArrayList<>();
        for (InetAddress a : candidates) {
          all.add(AddressClassifier.canonical(a));
        }
        return all;
      }
    }
    List<InetAddress> usable = new ArrayList<>();
    String refusal = null;
    for (InetAddress raw : candidates) {
      InetAddress a = AddressClassifier.canonical(raw);
      String why = isAllowedNetwork(a) ? null : AddressClassifier.internal(a);
      if (why == null) {
        usable.add(a);
      } else if (refusal == null) {
        String address = AddressClassifier.format(a);
        if (!name) {
          refusal = address + " is " + why + "; allow it with " + ALLOWED_NETWORKS;
        } else if (isLocalhost(host)) {
          refusal = host + " is " + address + ", " + why + "; allow it with " + ALLOWED_NETWORKS;
        } else {
          refusal =
              host
                  + " resolves to "
                  + address
                  + ", "
                  + why
                  + "; allow it with "
                  + ALLOWED_NETWORKS
                  + " (or the host with "
                  + ALLOWED_HOSTS
                  + ")";
        }
      }
    }
    if (usable.isEmpty()) {
      throw new OutboundRefusedException(refusal);
    }
    return usable;
  }

  private static boolean isLocalhost(String host) {
    return host.equals("localhost") || host.endsWith(".localhost");
  }

  private boolean isAllowedHost(String host) {
    if (exactHosts.contains(host)) {
      return true;
    }
    for (String suffix : hostSuffixes) {
      if (host.endsWith(suffix) && host.length() > suffix.length()) {
        return true;
      }
    }
    return false;
  }

  private boolean isAllowedNetwork(InetAddress address) {
    for (Cidr c : allowedNetworks) {
      if (c.contains(address)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    List<String> hosts = new ArrayList<>(exactHosts);
    hostSuffixes.forEach(s -> hosts.add("*" + s));
    return "OutboundPolicy[allowedNetworks=" + allowedNetworks + ", allowedHosts=" + hosts + "]";
  }
}
