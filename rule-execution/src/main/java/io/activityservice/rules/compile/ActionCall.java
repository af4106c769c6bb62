package io.activityservice.rules.compile;

import java.util.Map;

/**
 * One {@code actions.run(handler, params)} call of a rule set, as its DRL shows it at deploy time:
 * what the author-scope check reads to know which event types the rule set may publish or send.
 *
 * @param line the line of the user's DRL
 * @param handler the handler's name when written as a string literal ({@code "publish"}), else
 *     {@code null}
 * @param params when the parameters are written in the call as {@code Map.of("type", "com.a.x",
 *     ...)} or {@code Map.ofEntries(Map.entry(..), ...)}: each key with its value when that is a
 *     string literal, else with {@code null} (computed at run time); {@code null} when they are
 *     written otherwise
 */
public record ActionCall(int line, String handler, Map<String, String> params) {

  /** Whether the parameters are a literal map whose {@code name} is there. */
  public boolean has(String name) {
    return params != null && params.containsKey(name);
  }

  /** The literal value of parameter {@code name}, or null when it is absent or computed. */
  public String literal(String name) {
    return params == null ? null : params.get(name);
  }
}
