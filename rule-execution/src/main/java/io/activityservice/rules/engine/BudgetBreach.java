package io.activityservice.rules.engine;

import java.time.Duration;
import java.time.Instant;

/**
 * The latest time an event's evaluation in a rule set hit a bound ({@code evaluation-budget} or
 * {@code max-activations-per-event}).
 *
 * @param time when the evaluation ended
 * @param eventId the event being evaluated
 * @param bound {@code time} or {@code activations}
 * @param fired rule firings before the bound stopped the evaluation
 * @param dropped matches dropped (not fired) because of the bound
 * @param elapsed how long the evaluation took
 * @param count how many evaluations of this rule set hit a bound since it was first deployed
 */
public record BudgetBreach(
    Instant time,
    String eventId,
    String bound,
    int fired,
    int dropped,
    Duration elapsed,
    long count) {}
