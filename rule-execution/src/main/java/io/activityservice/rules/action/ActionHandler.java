package io.activityservice.rules.action;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * An action rules can run by name ({@code actions.run(name, params)}). Built-ins: {@code webhook},
 * {@code publish}, {@code send}, {@code log}. More are plugged in as Spring beans implementing this
 * interface; they are discovered automatically.
 *
 * <p>Contract: {@link #execute} is called on an action-executor thread, must not block for long
 * (use asynchronous I/O and complete the future later), and must never throw: report failures by
 * completing the future with {@link ActionResult#failed} or exceptionally.
 */
public interface ActionHandler {

  /** The name rules use; unique among handlers. */
  String name();

  /**
   * Executes the action once (including the handler's own retries, counted in {@link
   * ActionResult#attempts()}).
   */
  CompletableFuture<ActionResult> execute(Map<String, Object> params, ActionContext context);
}
