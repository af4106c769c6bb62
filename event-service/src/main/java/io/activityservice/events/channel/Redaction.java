package io.activityservice.events.channel;

import java.net.URI;

/**
 * Channel URIs as they may appear in logs, metrics, dead letters and API answers: without credentials, query
 * strings (tokens are often passed there) or fragments. {@code https://user:secret@host/hook?token=x} becomes
 * {@code https://host/hook}; {@code jms:queue:orders?persistent=false} becomes {@code jms:queue:orders}.
 */
public final class Redaction {

  private Redaction() {
  }

  /** The URI without userinfo, query and fragment; never throws. */
  public static String uri(String uri) {
    if (uri == null) {
      return null;
    }
    String lower = uri.length() >= 8 ? uri.substring(0, 8).toLowerCase(java.util.Locale.ROOT) : uri;
    if (lower.startsWith("http://") || lower.startsWith("https://")) {
      try {
        URI u = URI.create(uri.trim());
        String host = u.getHost() == null ? "" : u.getHost();
        String port = u.getPort() < 0 ? "" : ":" + u.getPort();
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        return u.getScheme() + "://" + host + port + path;
      } catch (IllegalArgumentException e) {
        return uri.substring(0, uri.indexOf(':')) + "://(unparsable)";
      }
    }
    int cut = indexOfAny(uri, '?', '#');
    return cut < 0 ? uri : uri.substring(0, cut);
  }

  private static int indexOfAny(String s, char a, char b) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == a || c == b) {
        return i;
      }
    }
    return -1;
  }
}
