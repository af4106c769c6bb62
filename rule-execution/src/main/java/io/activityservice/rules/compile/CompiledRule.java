package io.activityservice.rules.compile;

import io.activityservice.events.scope.TypeScope;
import java.util.List;
import org.kie.api.KieBase;

/**
 * A rule set that compiled: ready to get sessions from.
 *
 * @param name the rule set's name
 * @param drl the user's DRL, as given
 * @param kieBase the compiled knowledge base (stream mode)
 * @param types the event types it can match
 * @param actions its {@code actions.run(..)} calls, as the DRL shows them
 * @param authorScope the event types its author may use ({@link TypeScope#ALL} for unscoped
 *     authors): what its {@code publish} and {@code send} actions are checked against when they
 *     emit
 */
public record CompiledRule(
    String name,
    String drl,
    KieBase kieBase,
    EventTypes types,
    List<ActionCall> actions,
    TypeScope authorScope) {

  public CompiledRule {
    actions = actions == null ? List.of() : List.copyOf(actions);
    authorScope = authorScope == null ? TypeScope.ALL : authorScope;
  }

  /** A rule set whose actions are not known, by an unscoped author (benchmarks). */
  public CompiledRule(String name, String drl, KieBase kieBase, EventTypes types) {
    this(name, drl, kieBase, types, List.of(), TypeScope.ALL);
  }

  /** The same rule set, deployed for an author with {@code scope}. */
  public CompiledRule withAuthorScope(TypeScope scope) {
    return new CompiledRule(name, drl, kieBase, types, actions, scope);
  }
}
