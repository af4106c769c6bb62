package io.activityservice.rules.action;

import io.activityservice.events.log.LogSafe;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code log}: writes {@code message} (and the triggering event's id) to the log at INFO, logger
 * {@code activity.rules}, on one line: line breaks and other control characters in the message, the
 * rule's name and the event id are escaped and the message is bounded ({@link LogText}), so a rule
 * cannot forge log lines.
 */
public final class LogAction implements ActionHandler {

  private static final Logger log = LoggerFactory.getLogger("activity.rules");

  @Override
  public String name() {
    return "log";
  }

  @Override
  public CompletableFuture<ActionResult> execute(Map<String, Object> params, ActionContext ctx) {
    Object message = params.getOrDefault("message", "fired");
    log.info(
        "rule {} ({}): {} [event {}]",
        ctx.rule(),
        LogSafe.message(ctx.firedRule()),
        LogSafe.message(message),
        ctx.event() == null ? "-" : LogSafe.message(ctx.event().getId()));
    return CompletableFuture.completedFuture(ActionResult.succeeded(1));
  }
}
