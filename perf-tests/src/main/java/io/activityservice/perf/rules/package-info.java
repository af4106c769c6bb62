/**
 * Drools rule-path measurements run by hand ({@code java -cp perf-tests/target/perf-runner.jar
 * <class> [options]}): {@link io.activityservice.perf.rules.RulePathMeasurement} (events/s through
 * the engine with 1, 10 and 100 rule sets) and {@link
 * io.activityservice.perf.rules.EvaluationCostMeasurement} (cost of one evaluation as a window
 * grows). They print tables and assert nothing; the per-event JMH figures are {@code
 * RuleBenchmark}'s.
 */
package io.activityservice.perf.rules;
