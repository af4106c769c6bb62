#!/usr/bin/env bash
# The in-process pipeline benchmark (PipelineBenchmark, issue 20): CPU time and bytes allocated per relayed event.
#   perf-tests/jmh-pipeline.sh [--no-build] [extra JMH options, e.g. -p pattern=type -wi 3 -i 3]
# Builds perf-tests/target/benchmarks.jar with this tree's modules (the reactor, nothing installed), runs the
# benchmark with -prof gc (gc.alloc.rate.norm = bytes per event) and the process CPU profiler (cpu.process.norm =
# CPU ns per event), and writes perf-tests/target/jmh/pipeline.json, the file the suite's target table reads
# (run.sh --jmh-result, default that path).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--no-build" ]]; then
  shift
else
  ./mvnw -q -B -pl perf-tests -am package -DskipTests
fi
mkdir -p perf-tests/target/jmh
exec java -jar perf-tests/target/benchmarks.jar PipelineBenchmark \
  -prof gc -prof io.activityservice.perf.ProcessCpuProfiler \
  -rf json -rff perf-tests/target/jmh/pipeline.json "$@"
