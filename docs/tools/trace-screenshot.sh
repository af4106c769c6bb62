#!/usr/bin/env bash
# Takes the documentation's screenshot of a causal trace (docs/images/causal-trace.png, shown in
# docs/tracing.md and the README): runs the opt-in TraceScreenshotIT, which starts Zipkin's
# executable server jar (Maven Central), runs the service tracing at 100 % into it, sends meter
# samples over REST and JMS through a detector to a webhook, and photographs the derived event's
# trace in Zipkin's UI with headless Chromium (apt-get install chromium chromium-driver).
# Usage: docs/tools/trace-screenshot.sh [output.png]   (extra Maven flags in MAVEN_FLAGS, e.g. -o)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$(realpath -m "${1:-$root/docs/images/causal-trace.png}")"
cd "$root"
# shellcheck disable=SC2086
nice -n 19 ./mvnw -B -q ${MAVEN_FLAGS:-} -pl activity-service -am verify \
  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=TraceScreenshotIT \
  -Dfailsafe.failIfNoSpecifiedTests=false -Dspotless.check.skip=true \
  -Dtrace.screenshot="$out"
if command -v optipng >/dev/null; then optipng -quiet -o2 "$out"; fi
ls -l "$out"
