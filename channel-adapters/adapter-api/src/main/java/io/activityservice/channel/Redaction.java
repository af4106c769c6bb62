package io.activityservice.channel;

import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.util.Locale;
import java.util.Set;

/**
 * Channel URIs and settings as they may appear in logs, metrics, dead letters and API answers:
 * without credentials, tokens or other secrets. The one place that decides what is shown.
 *
 * <p>The rule for {@code http(s)} URLs: scheme, host and port are kept; user info, query and
 * fragment are dropped; of the path, the first segment is kept if it looks like a word (at most 32
 * characters of {@code [A-Za-z0-9._~-]}, at most 3 digits, and not mixed-case when 8 characters or
 * longer — tokens are mixed case or digit-heavy) and replaced by {@code *} otherwise; every further
 * segment is replaced by one {@code *} (secrets such as {@code /services/T0/B0/XXXX} or {@code
 * /hook/<token>} usually sit there). So {@code
 * https://user:pw@hooks.example.com:8443/services/T0001/B0002/abcDEF123?token=x} becomes {@code
 * https://hooks.example.com:8443/services/*}, and {@code https://h.example/Ab3dE9fG7hJ2kL5m}
 * becomes {@code https://h.example/*}. Other URIs lose their query and fragment: {@code
 * jms:queue:orders?persistent=false} becomes {@code jms:queue:orders}.
 *
 * <p>The result depends only on the URI, so it also serves as a bounded metric tag value per
 * webhook.
 */
public final class Redaction {

  /** What a secret value is shown as. */
  public static final String MASK = "***";

  private static final int MAX_WORD = 32;
  private static final int MAX_DIGITS = 3;

  private Redaction() {}

  /** {@link #uri(String)} of a channel URI. */
  public static String uri(ChannelUri uri) {
    return uri == null ? null : uri(uri.toString());
  }

  /** The URI without secrets (see the class comment); never throws. */
  public static String uri(String uri) {
    if (uri == null) {
      return null;
    }
    String trimmed = uri.trim();
    String lower =
        trimmed.length() >= 8 ? trimmed.substring(0, 8).toLowerCase(Locale.ROOT) : trimmed;
    if (lower.startsWith("http://") || lower.startsWith("https://")) {
      return url(trimmed);
    }
    int cut = indexOfAny(trimmed, '?', '#');
    String plain = cut < 0 ? trimmed : trimmed.substring(0, cut);
    int at = plain.indexOf('@');
    int slashes = plain.indexOf("://");
    // An embedded URL (e.g. sqs:https://user:key@host/queue) loses its user info too.
    return slashes >= 0 && at > slashes
        ? plain.substring(0, slashes + 3) + plain.substring(at + 1)
        : plain;
  }

  private static String url(String text) {
    String scheme = text.substring(0, text.indexOf(':')).toLowerCase(Locale.ROOT);
    try {
      URI u = URI.create(text);
      String host = u.getHost();
      if (host == null) {
        return scheme + "://(invalid host)";
      }
      String port = u.getPort() < 0 ? "" : ":" + u.getPort();
      return scheme + "://" + host.toLowerCase(Locale.ROOT) + port + path(u.getRawPath());
    } catch (IllegalArgumentException e) {
      return scheme + "://(unparsable)";
    }
  }

  /**
   * The path by the rule of the class comment: the first segment if it looks like a word, then one
   * {@code *}.
   */
  static String path(String rawPath) {
    if (rawPath == null || rawPath.isEmpty() || rawPath.equals("/")) {
      return rawPath == null ? "" : rawPath;
    }
    String rest = rawPath.startsWith("/") ? rawPath.substring(1) : rawPath;
    int slash = rest.indexOf('/');
    String first = slash < 0 ? rest : rest.substring(0, slash);
    String after = slash < 0 ? "" : rest.substring(slash);
    StringBuilder out = new StringBuilder("/").append(looksLikeWord(first) ? first : "*");
    if (after.equals("/")) {
      out.append('/');
    } else if (!after.isEmpty()) {
      out.append("/*");
    }
    return out.toString();
  }

  /** Whether a path segment reads like a word rather than an id or a token. */
  static boolean looksLikeWord(String segment) {
    if (segment.isEmpty() || segment.length() > MAX_WORD) {
      return false;
    }
    int digits = 0;
    boolean upper = false;
    boolean lower = false;
    for (int i = 0; i < segment.length(); i++) {
      char c = segment.charAt(i);
      if (c >= '0' && c <= '9') {
        digits++;
      } else if (c >= 'A' && c <= 'Z') {
        upper = true;
      } else if (c >= 'a' && c <= 'z') {
        lower = true;
      } else if (c != '-' && c != '_' && c != '.' && c != '~') {
        return false; // percent-encodings and the like: could hide anything
      }
    }
    return digits <= MAX_DIGITS && !(segment.length() >= 8 && upper && lower);
  }

  /**
   * A record as {@code Name[a=1, password=***]}: like the generated {@code toString()}, but the
   * named components print {@link #MASK} when they hold a non-empty value. Settings records with
   * secrets override {@code toString()} with it, so that new components are printed without anyone
   * having to remember.
   *
   * @param record the record
   * @param secrets names of the components to hide
   */
  public static String record(Record record, Set<String> secrets) {
    StringBuilder out = new StringBuilder(record.getClass().getSimpleName()).append('[');
    RecordComponent[] components = record.getClass().getRecordComponents();
    for (int i = 0; i < components.length; i++) {
      RecordComponent c = components[i];
      out.append(i == 0 ? "" : ", ").append(c.getName()).append('=');
      Object value;
      try {
        value = c.getAccessor().invoke(record);
      } catch (ReflectiveOperationException | RuntimeException e) {
        value = "?";
      }
      boolean hide =
          secrets.contains(c.getName()) && value != null && !String.valueOf(value).isEmpty();
      out.append(hide ? MASK : value);
    }
    return out.append(']').toString();
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
