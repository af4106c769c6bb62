package io.activityservice.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The address policy as a table: every address form an SSRF attempt might use, allowed or refused,
 * and the allow-list exceptions. Pure logic: names resolve through a fixed table, nothing is
 * contacted.
 */
class OutboundPolicyTest {

  /** A resolver with fixed answers, like a DNS zone the test controls. */
  static HostResolver zone(Map<String, List<String>> answers) {
    return host -> {
      List<String> a = answers.get(host);
      if (a == null) {
        throw new UnknownHostException(host);
      }
      InetAddress[] out = new InetAddress[a.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = InetAddress.getByAddress(host, AddressClassifier.literal(a.get(i)));
      }
      return out;
    };
  }

  static final HostResolver ZONE =
      zone(
          Map.of(
              "private.test", List.of("10.0.0.5"),
              "metadata.test", List.of("169.254.169.254"),
              "mapped.test", List.of("::ffff:127.0.0.1"),
              "mixed.test", List.of("10.0.0.5", "203.0.114.9"),
              "public.test", List.of("203.0.114.9"),
              "hooks.corp.test", List.of("10.1.1.1"),
              "corp.test", List.of("10.1.1.2"),
              "intranet.test", List.of("192.168.7.7")));

  static final OutboundPolicy DEFAULT = new OutboundPolicy(List.of(), List.of(), ZONE);

  /** Outcome for a URL under the default policy: the address used, or why it was refused. */
  static String outcome(OutboundPolicy policy, String url) {
    try {
      List<InetAddress> addresses = policy.addresses(OutboundPolicy.host(URI.create(url)));
      return "allowed " + AddressClassifier.format(addresses.get(0));
    } catch (OutboundRefusedException e) {
      assertThat(e)
          .hasMessage("target refused by the outbound policy"); // the generic message, always
      return "refused: " + e.reason();
    } catch (UnknownHostException e) {
      return "unknown";
    } catch (IllegalArgumentException e) {
      return "invalid: " + e.getMessage();
    }
  }

  @ParameterizedTest(name = "{0} is refused as {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        // loopback, in every notation
        "http://127.0.0.1/                   | a loopback address",
        "http://127.255.255.254:8080/x       | a loopback address",
        "http://[::1]/                       | a loopback address",
        "http://[0:0:0:0:0:0:0:1]/           | a loopback address",
        "http://[::ffff:127.0.0.1]/          | a loopback address",
        "http://[::ffff:7f00:1]/             | a loopback address",
        "http://localhost/                   | a loopback address",
        "http://localhost./                  | a loopback address",
        "http://LOCALHOST:9999/              | a loopback address",
        "http://api.localhost/               | a loopback address",
        "http://mapped.test/                 | a loopback address",
        // numbers some resolvers read as addresses
        "http://2130706433/                  | not a standard IPv4 address (some resolvers read it as 127.0.0.1)",
        "http://0x7f.1/                      | not a standard IPv4 address (some resolvers read it as 127.0.0.1)",
        "http://017700000001/                | not a standard IPv4 address (some resolvers read it as 127.0.0.1)",
        "http://0177.0.0.1/                  | not a standard IPv4 address (some resolvers read it as 127.0.0.1)",
        "http://127.1/                       | not a standard IPv4 address (some resolvers read it as 127.0.0.1)",
        "http://0x7f000001/                  | not a standard IPv4 address (some resolvers read it as 127.0.0.1)",
        "http://127.000.000.001/             | not a standard IPv4 address (some resolvers read it as 127.0.0.1)",
        "http://user:pw@0x7f.1:8080/         | not a standard IPv4 address (some resolvers read it as 127.0.0.1)",
        // unspecified
        "http://0.0.0.0/                     | the unspecified address",
        "http://[::]/                        | the unspecified address",
        "http://0.1.2.3/                     | a 'this network' address",
        // cloud metadata and link-local
        "http://169.254.169.254/latest/meta-data/ | a link-local address",
        "http://169.254.170.2/v2/credentials | a link-local address",
        "http://[::ffff:169.254.169.254]/    | a link-local address",
        "http://[64:ff9b::a9fe:a9fe]/        | a link-local address",
        "http://metadata.test/               | a link-local address",
        "http://[fe80::1]/                   | a link-local address",
        "http://[febf:ffff::1]/              | a link-local address",
        "http://[fe80::1%25eth0]/            | has a zone id",
        // private
        "http://10.0.0.1/                    | a private address",
        "http://172.16.0.1/                  | a private address",
        "http://172.31.255.255/              | a private address",
        "http://192.168.1.1/                 | a private address",
        "http://private.test/hook            | a private address",
        "http://[fd00::1]/                   | a unique local (private) address",
        "http://[fd00:ec2::254]/             | a unique local (private) address",
        "http://[fc00::1]/                   | a unique local (private) address",
        "http://[2002:a00:1::]/              | a private address",
        // other special ranges
        "http://100.64.0.1/                  | a shared (carrier-grade NAT) address",
        "http://100.127.255.254/             | a shared (carrier-grade NAT) address",
        "http://198.18.0.1/                  | a benchmarking address",
        "http://198.19.255.254/              | a benchmarking address",
        "http://224.0.0.1/                   | a multicast address",
        "http://239.255.255.250/             | a multicast address",
        "http://[ff02::1]/                   | a multicast address",
        "http://255.255.255.255/             | the broadcast address",
        "http://240.0.0.1/                   | a reserved address",
        "http://192.0.0.192/                 | an IETF protocol assignment address",
        "http://192.0.2.1/                   | a documentation address",
        "http://[2001:db8::1]/               | a documentation address",
        "http://[::7f00:1]/                  | an IPv4-compatible address",
        "http://[2001::1]/                   | a Teredo tunnel address",
        "http://[100::1]/                    | a discard-only address",
        "http://[4000::1]/                   | not a global unicast address",
      })
  void internalTargetsAreRefused(String url, String why) {
    assertThat(outcome(DEFAULT, url.trim())).startsWith("refused: ").contains(why.trim());
  }

  @ParameterizedTest(name = "{0} is allowed via {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "https://93.184.216.34/hook          | 93.184.216.34",
        "http://8.8.8.8:8080/                | 8.8.8.8",
        "http://172.32.0.1/                  | 172.32.0.1",
        "http://100.128.0.1/                 | 100.128.0.1",
        "http://169.253.255.255/             | 169.253.255.255",
        "http://198.20.0.1/                  | 198.20.0.1",
        "http://[2606:4700:4700::1111]/      | 2606:4700:4700::1111",
        "http://[::ffff:8.8.8.8]/            | 8.8.8.8",
        "http://[64:ff9b::808:808]/          | 64:ff9b::808:808",
        "http://public.test/hook             | 203.0.114.9",
        "http://public.test./hook            | 203.0.114.9",
        "http://mixed.test/                  | 203.0.114.9",
      })
  void publicTargetsAreAllowed(String url, String address) {
    assertThat(outcome(DEFAULT, url.trim())).isEqualTo("allowed " + address.trim());
  }

  @Test
  void refusalsSayWhatAndHowToAllowIt() {
    assertThat(outcome(DEFAULT, "http://169.254.169.254/latest/meta-data/"))
        .isEqualTo(
            "refused: 169.254.169.254 is a"
                + " link-local address (cloud metadata endpoints such as 169.254.169.254 and 169.254.170.2 live there);"
                + " allow it with activity.outbound.allowed-networks");
    assertThat(outcome(DEFAULT, "http://private.test/"))
        .isEqualTo(
            "refused: private.test resolves to 10.0.0.5, a"
                + " private address; allow it with activity.outbound.allowed-networks (or the host with"
                + " activity.outbound.allowed-hosts)");
    assertThat(outcome(DEFAULT, "http://[64:ff9b::a00:1]/"))
        .contains("a private address (10.0.0.1, reached through NAT64)");
    assertThat(outcome(DEFAULT, "http://nowhere.test/")).isEqualTo("unknown");
    assertThat(outcome(DEFAULT, "http:/no-host")).isEqualTo("invalid: has no valid host");
  }

  @Test
  void allowedNetworksOpenExactlyTheirRanges() {
    OutboundPolicy loopback = new OutboundPolicy(List.of("127.0.0.0/8"), List.of(), ZONE);
    assertThat(outcome(loopback, "http://127.0.0.1:9999/")).isEqualTo("allowed 127.0.0.1");
    assertThat(outcome(loopback, "http://[::ffff:127.0.0.1]/")).isEqualTo("allowed 127.0.0.1");
    assertThat(outcome(loopback, "http://localhost/"))
        .isEqualTo("allowed 127.0.0.1"); // ::1 is not in the range
    assertThat(outcome(loopback, "http://[::1]/")).startsWith("refused: ::1 is a loopback address");
    assertThat(outcome(loopback, "http://0x7f.1/"))
        .startsWith("refused: '0x7f.1' is not a standard");
    assertThat(outcome(loopback, "http://169.254.169.254/")).startsWith("refused:");

    OutboundPolicy narrow =
        new OutboundPolicy(
            List.of("10.0.0.5", "fd00::/8", "::ffff:192.168.0.0/112"), List.of(), ZONE);
    assertThat(outcome(narrow, "http://private.test/")).isEqualTo("allowed 10.0.0.5");
    assertThat(outcome(narrow, "http://10.0.0.6/")).startsWith("refused:");
    assertThat(outcome(narrow, "http://[fd00::1]/")).isEqualTo("allowed fd00::1");
    assertThat(outcome(narrow, "http://[fe80::1]/")).startsWith("refused:");
    assertThat(outcome(narrow, "http://intranet.test/")).isEqualTo("allowed 192.168.7.7");
  }

  @Test
  void allowedHostsOpenNamesWhateverTheyResolveTo() {
    OutboundPolicy hosts =
        new OutboundPolicy(List.of(), List.of("*.corp.test", "Metadata.Test."), ZONE);
    assertThat(outcome(hosts, "https://hooks.corp.test/x")).isEqualTo("allowed 10.1.1.1");
    assertThat(outcome(hosts, "https://corp.test/x"))
        .startsWith("refused:"); // *.corp.test: subdomains only
    assertThat(outcome(hosts, "https://metadata.test/")).isEqualTo("allowed 169.254.169.254");
    assertThat(outcome(hosts, "https://private.test/")).startsWith("refused:");
    assertThat(outcome(hosts, "https://10.1.1.1/"))
        .startsWith("refused:"); // addresses are not names
  }

  @Test
  void badSettingsFailWithTheSettingNamed() {
    assertThatThrownBy(() -> new OutboundPolicy(List.of("10.0.0.0/33"), List.of(), ZONE))
        .hasMessageContaining("activity.outbound.allowed-networks")
        .hasMessageContaining("prefix");
    assertThatThrownBy(() -> new OutboundPolicy(List.of("0x7f.0.0.1/8"), List.of(), ZONE))
        .hasMessageContaining("activity.outbound.allowed-networks")
        .hasMessageContaining("four decimal numbers");
    assertThatThrownBy(() -> new OutboundPolicy(List.of(), List.of("10.0.0.1"), ZONE))
        .hasMessageContaining("activity.outbound.allowed-hosts")
        .hasMessageContaining("10.0.0.1/32");
    assertThatThrownBy(() -> new OutboundPolicy(List.of(), List.of("*"), ZONE))
        .hasMessageContaining("activity.outbound.allowed-hosts");
    assertThatThrownBy(() -> new OutboundPolicy(List.of(), List.of("a.*.test"), ZONE))
        .hasMessageContaining("activity.outbound.allowed-hosts");
  }

  @Test
  void theClassifierAgreesWithTheJdkOnItsOwnSpecialAddresses() throws Exception {
    for (String a :
        Arrays.asList(
            "127.0.0.1",
            "::1",
            "0.0.0.0",
            "::",
            "169.254.1.1",
            "fe80::1",
            "10.1.2.3",
            "172.20.0.1",
            "192.168.0.1",
            "224.1.1.1",
            "ff05::2",
            "fec0::1")) {
      InetAddress address = InetAddress.getByAddress(AddressClassifier.literal(a));
      assertThat(AddressClassifier.internal(address)).as(a).isNotNull();
    }
  }
}
