/**
 * The batching sweep, {@code perf-tests/run.sh --batching-sweep}: SQS send batching with fixed
 * batch sizes 1, 2, 5 and 10 against the adaptive controller ({@link
 * io.activityservice.channel.batching.AdaptiveBatchPolicy}) at a low, a medium and an overload
 * rate, through the project's SQS adapter (LocalStack by default). It checks the controller's
 * promises: at low load its median latency is within 10 % of batch size 1's, under overload its
 * throughput is within 10 % of the best fixed size's. The report (SVG charts, tables, CSV) goes to
 * {@code perf-tests/target/report/batching/}. See {@link
 * io.activityservice.perf.batching.BatchingSweep} for the options.
 */
package io.activityservice.perf.batching;
