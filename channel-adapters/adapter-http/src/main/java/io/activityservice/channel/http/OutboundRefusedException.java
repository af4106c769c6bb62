package io.activityservice.channel.http;

/**
 * A webhook target the outbound policy refuses: it is, or resolves to, an address that is not on
 * the public internet and no {@code activity.outbound.allowed-*} exception opens it. The message is
 * generic on purpose (it ends up in dead letters and delivery errors, which must not map internal
 * networks); {@link #reason()} says why, for the operator's log and for the answer to whoever
 * configures the target.
 */
public final class OutboundRefusedException extends RuntimeException {

  /** The message every refused send carries. */
  public static final String MESSAGE = "target refused by the outbound policy";

  private final String reason;

  /**
   * @param reason why, e.g. {@code "169.254.169.254 is a link-local address …; allow it with
   *     activity.outbound.allowed-networks"}
   */
  public OutboundRefusedException(String reason) {
    super(
        MESSAGE, null, false,
        false); // no stack trace: an expected outcome, and one per refused attempt
    this.reason = reason;
  }

  /** Why the target was refused, naming the address and the setting that would allow it. */
  public String reason() {
    return reason;
  }
}
