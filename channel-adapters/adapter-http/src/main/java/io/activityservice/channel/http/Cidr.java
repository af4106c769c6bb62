package io.activityservice.channel.http;

import java.net.InetAddress;
import java.util.Arrays;

/**
 * An address range such as {@code 10.0.0.0/8} or {@code fd00::/8}. IPv4 ranges match IPv4 addresses
 * only and IPv6 ranges IPv6 addresses only (IPv4-mapped IPv6 addresses arrive here already as IPv4,
 * see {@link AddressClassifier#canonical(InetAddress)}). Immutable.
 */
final class Cidr {

  private final byte[] network;
  private final int prefix;
  private final String text;

  private Cidr(byte[] network, int prefix, String text) {
    this.network = network;
    this.prefix = prefix;
    this.text = text;
  }

  /**
   * Parses {@code address/prefix}, or a bare address (a single host). IPv4 must be written as four
   * decimal numbers; IPv6 in any standard notation, without zone.
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  static Cidr parse(String text) {
    String t = text == null ? "" : text.trim();
    int slash = t.indexOf('/');
    String address = slash < 0 ? t : t.substring(0, slash);
    byte[] bytes = AddressClassifier.literal(address);
    if (bytes == null) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a network; write e.g. 10.0.0.0/8, 192.168.1.5 or fd00::/8"
              + " (IPv4 as four decimal numbers)");
    }
    int max = bytes.length * 8;
    int prefix = max;
    if (slash >= 0) {
      try {
        prefix = Integer.parseInt(t.substring(slash + 1));
      } catch (NumberFormatException e) {
        prefix = -1;
      }
      if (prefix < 0 || prefix > max) {
        throw new IllegalArgumentException(
            "'" + text + "' has an invalid prefix length; use 0 to " + max);
      }
    }
    if (bytes.length == 16
        && prefix >= 96
        && isMapped(bytes)) { // ::ffff:10.0.0.0/104 is 10.0.0.0/8
      bytes = new byte[] {bytes[12], bytes[13], bytes[14], bytes[15]};
      prefix -= 96;
    }
    return new Cidr(mask(bytes, prefix), prefix, t);
  }

  private static boolean isMapped(byte[] b) {
    for (int i = 0; i < 10; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return b[10] == (byte) 0xFF && b[11] == (byte) 0xFF;
  }

  /** A range from its canonical text; for the built-in tables. */
  static Cidr of(String text) {
    return parse(text);
  }

  /** Whether {@code address} (4 or 16 bytes) lies in this range. */
  boolean contains(byte[] address) {
    return address.length == network.length && Arrays.equals(mask(address, prefix), network);
  }

  boolean contains(InetAddress address) {
    return contains(address.getAddress());
  }

  private static byte[] mask(byte[] address, int prefix) {
    byte[] out = address.clone();
    for (int i = 0; i < out.length; i++) {
      int keep = Math.max(0, Math.min(8, prefix - i * 8));
      out[i] = (byte) (out[i] & (0xFF00 >> keep));
    }
    return out;
  }

  @Override
  public String toString() {
    return text;
  }
}
