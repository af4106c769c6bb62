package io.activityservice.rules.action;

import io.activityservice.rules.Event;

/**
 * What an action knows about why it runs.
 *
 * @param rule      the deployed rule set's name (as in {@code /api/v1/rules/{name}})
 * @param firedRule the name of the DRL rule whose consequence ran the action
 * @param event     the triggering event: the {@code event} parameter if it is an {@link Event}, else the
 *                  event whose insertion fired the rule; may be {@code null}
 */
public record ActionContext(String rule, String firedRule, Event event) {
}
