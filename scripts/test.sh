#!/usr/bin/env bash
# The test command: lint, then pytest. pytest's exit 5 (no tests collected) is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
export PITLAKE_OFFLINE=1 PREFECT_SERVER_ANALYTICS_ENABLED=false DO_NOT_TRACK=1 \
  GX_ANALYTICS_ENABLED=false TQDM_DISABLE=1
.venv/bin/ruff check . || exit 1
.venv/bin/ruff format --check . || exit 1
.venv/bin/python -m pytest -q "$@"
rc=$?
if [ $rc -eq 5 ]; then echo "no tests collected: failing" >&2; exit 1; fi
exit $rc
