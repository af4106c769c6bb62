package io.activityservice.rules.action;

import java.time.Instant;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One action a rule asked for, waiting to run.
 *
 * @param handler the handler's name
 * @param params its parameters
 * @param context why it runs
 * @param time when the rule asked for it
 * @param startNanos {@link System#nanoTime()} then
 * @param sink receives the execution record when it settles
 */
public record ActionRequest(
    String handler,
    Map<String, Object> params,
    ActionContext context,
    Instant time,
    long startNanos,
    Consumer<ExecutionRecord> sink) {}
