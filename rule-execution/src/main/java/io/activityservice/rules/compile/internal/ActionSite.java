package io.activityservice.rules.compile.internal;

import java.util.Map;

/**
 * One {@code actions.run(handler, params)} call found in rule code.
 *
 * @param line the line in the compiled source (header + the user's DRL)
 * @param handler the handler's name when it is a string literal, else {@code null}
 * @param params when the parameters are written in the call as {@code Map.of("k", v, ...)} or
 *     {@code Map.ofEntries(Map.entry("k", v), ...)} with literal keys: each key with its value when
 *     that is a string literal, else with {@code null}; {@code null} when they are written
 *     otherwise
 */
public record ActionSite(int line, String handler, Map<String, String> params) {}
