package io.activityservice.rules.action;

import io.activityservice.events.scope.TypeScope;
import io.activityservice.rules.Event;

/**
 * What an action knows about why it runs.
 *
 * @param rule the deployed rule set's name (as in {@code /api/v1/rules/{name}})
 * @param firedRule the name of the DRL rule whose consequence ran the action
 * @param event the triggering event: the {@code event} parameter if it is an {@link Event}, else
 *     the event whose insertion fired the rule; may be {@code null}
 * @param authorScope the event types the rule set's author may use: what {@code publish} and {@code
 *     send} may emit ({@link TypeScope#ALL} for unscoped authors)
 */
public record ActionContext(String rule, String firedRule, Event event, TypeScope authorScope) {

  public ActionContext {
    authorScope = authorScope == null ? TypeScope.ALL : authorScope;
  }

  /** The context of a rule set of an unscoped author. */
  public ActionContext(String rule, String firedRule, Event event) {
    this(rule, firedRule, event, TypeScope.ALL);
  }
}
