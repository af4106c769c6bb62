package io.activityservice.perf.suite;

import java.util.List;

/**
 * One step of a latency ladder for one scenario: its runs at one offered rate (interleaved with the
 * other scenarios of its group) and whether the step was sustained (at least 2 of 3 runs met the
 * bound).
 *
 * @param scenario scenario id
 * @param rate offered rate, events/s
 * @param runs the runs, in order
 * @param passes whether each run met the bound
 * @param sustained the step's outcome
 * @param boundMs the p99 bound applied
 */
public record RateStep(
    String scenario,
    double rate,
    List<RunResult> runs,
    List<Boolean> passes,
    boolean sustained,
    double boundMs) {}
