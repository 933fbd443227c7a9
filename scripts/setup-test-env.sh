#!/usr/bin/env bash
# Installs what the test suite needs: the Python venv (uv), Debian chromium and PostgreSQL.
# Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
export UV_COMPILE_BYTECODE=1
need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
# CJK glyphs for the dashboard screenshot (vendor messages are Chinese)
dpkg -s fonts-wqy-microhei >/dev/null 2>&1 || need_apt+=(fonts-wqy-microhei)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} from Debian" >&2
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi
command -v uv >/dev/null 2>&1 || python3 -m pip install -q uv
[ -x .venv/bin/python ] || uv venv -q .venv
uv pip install -q --python .venv/bin/python -e '.[dev]'
# qlib reads `pitlake export qlib` directories in tests/export. Without --no-deps its
# requirements would downgrade pyarrow (26 → 25, mlflow's pin) and pull ~110 packages; its
# data layer's own imports are in the dev extra (pyproject.toml).
uv pip install -q --python .venv/bin/python --no-deps 'pyqlib==0.9.7'
