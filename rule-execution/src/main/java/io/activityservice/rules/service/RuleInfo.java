package io.activityservice.rules.service;

import io.activityservice.rules.compile.EventTypes;
import io.activityservice.rules.store.RuleDefinition;

/**
 * A stored rule set and its deployment state.
 *
 * @param definition what is stored
 * @param types the event types it receives, or {@code null} when it is not deployed
 * @param deployed whether it runs (false only if a stored rule set no longer compiles at start-up)
 */
public record RuleInfo(RuleDefinition definition, EventTypes types, boolean deployed) {}
