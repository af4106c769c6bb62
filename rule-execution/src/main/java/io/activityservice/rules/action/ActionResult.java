package io.activityservice.rules.action;

/**
 * How an action execution ended.
 *
 * @param succeeded whether it succeeded
 * @param attempts attempts made (1 without retries)
 * @param error why it failed, or {@code null}
 */
public record ActionResult(boolean succeeded, int attempts, String error) {

  public static ActionResult succeeded(int attempts) {
    return new ActionResult(true, attempts, null);
  }

  public static ActionResult failed(int attempts, String error) {
    return new ActionResult(false, attempts, error);
  }
}
