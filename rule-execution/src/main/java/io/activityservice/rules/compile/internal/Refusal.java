package io.activityservice.rules.compile.internal;

/**
 * One thing the guard refuses in a rule set's DRL.
 *
 * @param line the line in the compiled source (header + the user's DRL), 0 when unknown
 * @param construct what was found, as the user wrote it where possible, e.g. {@code
 *     System.exit(..)}
 * @param reason why it is refused, e.g. {@code JVM and process access is not allowed}
 */
public record Refusal(int line, String construct, String reason) {

  /** {@code 'System.exit(..)': JVM and process access is not allowed}. */
  public String describe() {
    return "'" + construct + "': " + reason;
  }
}
