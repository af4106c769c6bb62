package io.activityservice.rules;

import java.util.Map;

/**
 * The {@code actions} global of every rule. {@link #run} only hands the action over: it returns at
 * once, and the action runs later on the action executor, never on the rule engine's thread.
 */
@FunctionalInterface
public interface Actions {

  /**
   * Runs an action handler asynchronously, e.g. {@code actions.run("webhook", Map.of("url", "...",
   * "event", $e))}. An unknown handler or invalid parameters are recorded as a failed execution;
   * this method never throws.
   *
   * @param handler the handler's name: {@code webhook}, {@code publish}, {@code send}, {@code log}
   *     or a plugged-in one
   * @param params the handler's parameters
   */
  void run(String handler, Map<String, Object> params);
}
