package io.activityservice.rules.service;

import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.scope.TypeScope;
import io.activityservice.rules.action.SendAction;
import io.activityservice.rules.compile.ActionCall;
import io.activityservice.rules.compile.CompiledRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a rule set of a scoped author may do, checked on the compiled rule set at deploy time: it
 * receives only event types of the scope (every {@code Event} pattern pins its types), and every
 * {@code publish} and {@code send} action shows in the DRL what it emits: a literal handler,
 * parameters written as {@code Map.of(..)} in the call, a literal {@code type} within the scope (or
 * the triggering event forwarded, whose type is in the scope already), and for {@code send} a
 * literal http(s) {@code uri}: broker channels are the service's and other teams' infrastructure,
 * which a scoped author reaches only by publishing events of its types that a subscription
 * delivers. Unscoped authors ({@link TypeScope#ALL}) are not restricted. The actions check the same
 * again when they emit ({@link io.activityservice.rules.action.PublishAction}, {@link
 * io.activityservice.rules.action.SendAction}).
 */
final class RuleScopeCheck {

  /** Handlers that emit events into the service or onto channels. */
  static final Set<String> EMITTING = Set.of("publish", "send");

  private RuleScopeCheck() {}

  /**
   * @throws ForbiddenException on field {@code drl}, naming every line that reaches beyond {@code
   *     scope}
   */
  static void check(CompiledRule rule, TypeScope scope) {
    if (scope == null || scope.isAll()) {
      return;
    }
    List<String> problems = new ArrayList<>();
    if (rule.types().all()) {
      problems.add(
          "the rule set receives every event type (an Event or Object pattern without type == \"...\"): "
              + "every pattern must pin its types within your scope");
    } else {
      Set<String> outside = new TreeSet<>();
      rule.types().types().stream().filter(t -> !scope.allows(t)).forEach(outside::add);
      if (!outside.isEmpty()) {
        problems.add(
            "the rule set receives " + String.join(", ", outside) + ", outside your scope");
      }
    }
    for (ActionCall a : rule.actions()) {
      String at = "line " + a.line() + ": ";
      if (a.handler() == null) {
        problems.add(
            at
                + "actions.run(..) with a computed handler: the handler must be a string literal, so that "
                + "what the action emits is known");
        continue;
      }
      if (!EMITTING.contains(a.handler())) {
        continue;
      }
      if (a.params() == null) {
        problems.add(
            at
                + a.handler()
                + " parameters must be written in the call, as Map.of(\"type\", \"...\", ...), "
                + "so that the type it emits is known");
        continue;
      }
      if (a.has("type")) {
        String type = a.literal("type");
        if (type == null) {
          problems.add(
              at
                  + a.handler()
                  + " with a computed type: the type must be a string literal within your scope");
        } else if (!scope.allows(type)) {
          problems.add(at + a.handler() + " of type " + type + " is outside your scope");
        }
      } else if (!a.has("event")) {
        problems.add(
            at
                + a.handler()
                + " without a literal type: give \"type\" within your scope, or forward the "
                + "triggering event with \"event\"");
      }
      if (a.handler().equals("send")) {
        String uri = a.literal("uri");
        if (uri == null) {
          problems.add(at + "send to a computed uri: the uri must be a literal http(s) URL");
        } else if (!SendAction.isHttp(uri)) {
          problems.add(
              at
                  + "send to "
                  + io.activityservice.channel.Redaction.uri(uri)
                  + ": send may only post to "
                  + "http(s) URLs (under the outbound policy); to reach a queue or topic, publish an event of your types "
                  + "and subscribe that channel to it");
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new ForbiddenException(
          "drl",
          "reaches beyond the event types your credentials may use ("
              + scope
              + "): "
              + String.join("; ", problems));
    }
  }
}
