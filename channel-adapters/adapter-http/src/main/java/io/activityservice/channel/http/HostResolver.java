package io.activityservice.channel.http;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Resolves a host name to its addresses, as the outbound policy does when a webhook is checked and
 * before every connection. The default is the system resolver; tests inject their own to simulate
 * DNS answers that change (DNS rebinding). May block; the webhook client calls it on its own
 * resolver threads.
 */
@FunctionalInterface
public interface HostResolver {

  /** The system resolver ({@link InetAddress#getAllByName(String)}). */
  HostResolver SYSTEM = InetAddress::getAllByName;

  /**
   * The addresses of {@code host}, in the order to try them.
   *
   * @param host a host name, lower case, without trailing dot
   * @throws UnknownHostException if it has none
   */
  InetAddress[] resolve(String host) throws UnknownHostException;
}
