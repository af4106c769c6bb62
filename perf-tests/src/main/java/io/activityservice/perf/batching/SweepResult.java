package io.activityservice.perf.batching;

/**
 * What one run of the batching sweep measured: one batching configuration at one offered rate.
 *
 * @param config {@code fixed-1} … {@code fixed-10} or {@code adaptive}
 * @param load {@code low}, {@code medium} or {@code overload}
 * @param offeredRate events per second the open-loop producer offered
 * @param rep repetition, from 1
 * @param offered events offered
 * @param accepted events SQS accepted (send future completed normally) within the window
 * @param rejected sends refused at once (send buffer full) or failed
 * @param throughput accepted events per second of the window
 * @param p50Millis median latency from intended send time to SQS's acceptance
 * @param p99Millis 99th percentile of that latency
 * @param requests SendMessageBatch requests made
 * @param meanBatch mean entries per request
 */
public record SweepResult(
    String config,
    String load,
    double offeredRate,
    int rep,
    long offered,
    long accepted,
    long rejected,
    double throughput,
    double p50Millis,
    double p99Millis,
    long requests,
    double meanBatch) {}
