#!/usr/bin/env bash
# Prints the line and branch coverage that `./mvnw verify` measured (JaCoCo), from the CSV reports: the whole
# service (activity-service's report-aggregate: its tests and those of every module it depends on), then each
# module's own report. Usage: .ci/coverage.sh [repository root]; exits 1 if no report exists (verify did not run).
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"

# CSV columns: GROUP,PACKAGE,CLASS,INSTRUCTION_MISSED,INSTRUCTION_COVERED,BRANCH_MISSED,BRANCH_COVERED,
#              LINE_MISSED,LINE_COVERED,...
totals() {
  awk -F, -v name="$2" 'NR > 1 { bm += $6; bc += $7; lm += $8; lc += $9 }
    END {
      if (lm + lc == 0) exit
      printf "%-32s lines %5.1f %% (%d of %d)   branches %5.1f %% (%d of %d)\n", name,
        100 * lc / (lm + lc), lc, lm + lc, (bm + bc) ? 100 * bc / (bm + bc) : 0, bc, bm + bc
    }' "$1"
}

aggregate="$root/activity-service/target/site/jacoco-aggregate/jacoco.csv"
found=0
echo "Coverage (JaCoCo, unit and integration tests):"
if [[ -f "$aggregate" ]]; then
  totals "$aggregate" "service (aggregate)"
  found=1
fi
while IFS= read -r csv; do
  module="${csv#"$root"/}"
  module="${module%/target/site/jacoco/jacoco.csv}"
  totals "$csv" "  $module"
  found=1
done < <(find "$root" -path '*/target/site/jacoco/jacoco.csv' -not -path '*/node_modules/*' | sort)
if [[ $found -eq 0 ]]; then
  echo "no JaCoCo report under $root (run ./mvnw verify first)" >&2
  exit 1
fi
