#!/usr/bin/env bash
# The main job on a fresh machine: install pitlake, run the ingest flows over the bundled
# offline sample (every session 2025-04-01..2025-06-30), then ask one point-in-time question.
set -euo pipefail
cd "$(dirname "$0")/.."
export UV_COMPILE_BYTECODE=1
command -v uv >/dev/null 2>&1 || python3 -m pip install -q uv
[ -x .venv/bin/python ] || uv venv -q .venv
uv pip install -q --python .venv/bin/python -e .
LAKE="${PITLAKE_HOME:-./lake}"
.venv/bin/pitlake ingest --source replay:sample --start 2025-04-01 --end 2025-06-30 --lake "$LAKE"
echo
echo "As of 2025-06-03 (end of that Beijing day), 600519's last bars:"
.venv/bin/pitlake query quotes --symbol 600519 --start 2025-05-27 --end 2025-06-03 \
  --as-of 2025-06-03 --lake "$LAKE"
