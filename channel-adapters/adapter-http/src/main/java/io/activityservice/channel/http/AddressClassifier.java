package io.activityservice.channel.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Which addresses are not on the public internet, and the strict parsing of address literals. Deny
 * by default where it matters: an IPv6 address is public only inside {@code 2000::/3} (global
 * unicast) and outside the special ranges there; IPv4 is public outside the IANA special-purpose
 * ranges below. IPv6 forms that carry an IPv4 address (IPv4-mapped {@code ::ffff:a.b.c.d}, NAT64
 * {@code 64:ff9b::/96}, 6to4 {@code 2002::/16}) are judged by that IPv4 address as well. Stateless.
 */
final class AddressClassifier {

  private record Range(Cidr cidr, String label) {}

  // Patterns first: the range tables below are parsed with them.
  /** Dotted decimal, no leading zeros: the one IPv4 notation every parser reads the same way. */
  private static final Pattern DOTTED_QUAD =
      Pattern.compile(
          "(0|[1-9][0-9]{0,2})\\.(0|[1-9][0-9]{0,2})\\.(0|[1-9][0-9]{0,2})\\.(0|[1-9][0-9]{0,2})");

  /**
   * What inet_aton() would take for a number: 1 to 4 parts of decimal, octal (leading 0) or hex
   * (0x).
   */
  private static final Pattern LOOSE_NUMERIC =
      Pattern.compile("((0[xX][0-9a-fA-F]*|[0-9]+)\\.){0,3}(0[xX][0-9a-fA-F]*|[0-9]+)");

  private static final String LINK_LOCAL =
      "a link-local address (cloud metadata endpoints such as 169.254.169.254"
          + " and 169.254.170.2 live there)";

  private static final List<Range> IPV4 =
      List.of(
          range("0.0.0.0/32", "the unspecified address"),
          range("0.0.0.0/8", "a 'this network' address"),
          range("127.0.0.0/8", "a loopback address"),
          range("10.0.0.0/8", "a private address"),
          range("172.16.0.0/12", "a private address"),
          range("192.168.0.0/16", "a private address"),
          range("100.64.0.0/10", "a shared (carrier-grade NAT) address"),
          range("169.254.0.0/16", LINK_LOCAL),
          range("192.0.0.0/24", "an IETF protocol assignment address"),
          range("192.0.2.0/24", "a documentation address"),
          range("198.51.100.0/24", "a documentation address"),
          range("203.0.113.0/24", "a documentation address"),
          range("192.88.99.0/24", "a 6to4 relay address"),
          range("198.18.0.0/15", "a benchmarking address"),
          range("224.0.0.0/4", "a multicast address"),
          range("255.255.255.255/32", "the broadcast address"),
          range("240.0.0.0/4", "a reserved address"));

  private static final List<Range> IPV6 =
      List.of(
          range("::/128", "the unspecified address"),
          range("::1/128", "a loopback address"),
          range("::/96", "an IPv4-compatible address (deprecated)"),
          range("64:ff9b:1::/48", "a local-use NAT64 address"),
          range("100::/64", "a discard-only address"),
          range("2001::/32", "a Teredo tunnel address"),
          range("2001:db8::/32", "a documentation address"),
          range("2001::/23", "an IETF protocol assignment address"),
          range("3fff::/20", "a documentation address"),
          range("fc00::/7", "a unique local (private) address"),
          range("fe80::/10", "a link-local address"),
          range("fec0::/10", "a site-local address (deprecated)"),
          range("ff00::/8", "a multicast address"));

  private static final Cidr GLOBAL_UNICAST = Cidr.of("2000::/3");
  private static final Cidr NAT64 = Cidr.of("64:ff9b::/96");
  private static final Cidr SIX_TO_FOUR = Cidr.of("2002::/16");

  private AddressClassifier() {}

  private static Range range(String cidr, String label) {
    return new Range(Cidr.of(cidr), label);
  }

  /**
   * Why an address is not public, e.g. {@code "a private address"}; {@code null} if it is a public
   * unicast address.
   */
  static String internal(InetAddress address) {
    byte[] b = canonical(address).getAddress();
    if (b.length == 4) {
      for (Range r : IPV4) {
        if (r.cidr().contains(b)) {
          return r.label();
        }
      }
      return null;
    }
    for (Range r : IPV6) {
      if (r.cidr().contains(b)) {
        return r.label();
      }
    }
    byte[] embedded = embeddedIpv4(b);
    if (embedded != null) { // reaches the IPv4 address it carries: judged by that one
      String inner = internal(ipv4(embedded));
      return inner == null
          ? null
          : inner
              + " ("
              + format(ipv4(embedded))
              + ", reached through "
              + (NAT64.contains(b) ? "NAT64" : "6to4")
              + ")";
    }
    if (!GLOBAL_UNICAST.contains(b)) {
      return "not a global unicast address";
    }
    // Belt and braces: the JDK's own idea of special addresses.
    if (address.isAnyLocalAddress()
        || address.isLoopbackAddress()
        || address.isLinkLocalAddress()
        || address.isSiteLocalAddress()
        || address.isMulticastAddress()) {
      return "a special-purpose address";
    }
    return null;
  }

  /** The IPv4 address an IPv4-mapped IPv6 address stands for; any other address unchanged. */
  static InetAddress canonical(InetAddress address) {
    byte[] b = address.getAddress();
    if (b.length == 16 && isMapped(b)) {
      return ipv4(new byte[] {b[12], b[13], b[14], b[15]});
    }
    return address;
  }

  private static boolean isMapped(byte[] b) {
    for (int i = 0; i < 10; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return b[10] == (byte) 0xFF && b[11] == (byte) 0xFF;
  }

  /** The IPv4 address inside a NAT64 or 6to4 address, else {@code null}. */
  private static byte[] embeddedIpv4(byte[] b) {
    if (NAT64.contains(b)) {
      return new byte[] {b[12], b[13], b[14], b[15]};
    }
    if (SIX_TO_FOUR.contains(b)) {
      return new byte[] {b[2], b[3], b[4], b[5]};
    }
    return null;
  }

  private static InetAddress ipv4(byte[] b) {
    try {
      return InetAddress.getByAddress(b);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e); // 4 bytes are always an address
    }
  }

  /**
   * The bytes of an address literal in strict notation: IPv4 as dotted decimal without leading
   * zeros, IPv6 (with or without brackets) without zone; {@code null} if the text is no such
   * literal. Never looks anything up.
   */
  static byte[] literal(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    if (DOTTED_QUAD.matcher(text).matches()) {
      String[] parts = text.split("\\.");
      byte[] b = new byte[4];
      for (int i = 0; i < 4; i++) {
        int v = Integer.parseInt(parts[i]);
        if (v > 255) {
          return null;
        }
        b[i] = (byte) v;
      }
      return b;
    }
    String v6 =
        text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
    if (v6.indexOf(':') < 0 || v6.indexOf('%') >= 0 || !v6.matches("[0-9A-Fa-f:.]+")) {
      return null;
    }
    try {
      // In brackets the JDK parses the text as an IPv6 literal or fails; it never looks it up.
      byte[] b = InetAddress.getByName("[" + v6 + "]").getAddress();
      if (b.length == 4) { // an IPv4-mapped literal such as ::ffff:127.0.0.1: keep the IPv6 form
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xFF;
        mapped[11] = (byte) 0xFF;
        System.arraycopy(b, 0, mapped, 12, 4);
        return mapped;
      }
      return b;
    } catch (UnknownHostException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Whether a host looks like a number that some resolver would read as an IPv4 address ({@code
   * 2130706433}, {@code 0x7f.1}, {@code 017700000001}, {@code 127.1}, {@code 0177.0.0.1}) but is
   * not in strict dotted decimal: resolvers disagree about such hosts (decimal, octal, hex), so
   * they are refused.
   */
  static boolean isLooseNumeric(String host) {
    return LOOSE_NUMERIC.matcher(host).matches() && !DOTTED_QUAD.matcher(host).matches();
  }

  /**
   * The IPv4 address inet_aton() reads from a loose numeric host, for messages; {@code null} if it
   * reads none.
   */
  static String looseValue(String host) {
    String[] parts = host.split("\\.");
    long[] values = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i].toLowerCase(Locale.ROOT);
      try {
        values[i] =
            p.startsWith("0x")
                ? (p.length() == 2 ? 0 : Long.parseLong(p.substring(2), 16))
                : p.length() > 1 && p.startsWith("0")
                    ? Long.parseLong(p.substring(1), 8)
                    : Long.parseLong(p);
      } catch (NumberFormatException e) {
        return null;
      }
    }
    long value = 0;
    for (int i = 0; i < values.length - 1; i++) {
      if (values[i] > 255) {
        return null;
      }
      value |= values[i] << (8 * (3 - i));
    }
    long last = values[values.length - 1];
    if (last >= 1L << (8 * (4 - (values.length - 1)))) {
      return null;
    }
    value |= last;
    return ((value >> 24) & 0xFF)
        + "."
        + ((value >> 16) & 0xFF)
        + "."
        + ((value >> 8) & 0xFF)
        + "."
        + (value & 0xFF);
  }

  /** An address as text: IPv4 dotted, IPv6 compressed (RFC 5952), IPv4-mapped as IPv4. */
  static String format(InetAddress address) {
    byte[] b = canonical(address).getAddress();
    if (b.length == 4) {
      return (b[0] & 0xFF) + "." + (b[1] & 0xFF) + "." + (b[2] & 0xFF) + "." + (b[3] & 0xFF);
    }
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((b[2 * i] & 0xFF) << 8) | (b[2 * i + 1] & 0xFF);
    }
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; i++) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = Math.max(i, j);
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        out.append("::");
        i += bestLength - 1;
        continue;
      }
      if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
        out.append(':');
      }
      out.append(Integer.toHexString(groups[i]));
    }
    return out.toString();
  }
}
