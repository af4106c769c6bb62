package io.activityservice.rules.compile;

import org.kie.api.KieBase;

/**
 * A rule set that compiled: ready to get sessions from.
 *
 * @param name    the rule set's name
 * @param drl     the user's DRL, as given
 * @param kieBase the compiled knowledge base (stream mode)
 * @param types   the event types it can match
 */
public record CompiledRule(String name, String drl, KieBase kieBase, EventTypes types) {
}
