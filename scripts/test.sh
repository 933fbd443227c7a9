#!/usr/bin/env bash
# The test command: lint, then pytest. pytest's exit 5 (no tests collected) is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
export PITLAKE_OFFLINE=1 PREFECT_SERVER_ANALYTICS_ENABLED=false DO_NOT_TRACK=1 \
  GX_ANALYTICS_ENABLED=false TQDM_DISABLE=1
.venv/bin/ruff check . || exit 1
.venv/bin/ruff format --check . || exit 1
# The layers (pyproject [tool.importlinter]), over the package as the wheel lays it out.
.venv/bin/python scripts/lint_imports.py || exit 1
# The catalog tests also run on PostgreSQL: start a throwaway cluster when the server binaries
# exist (scripts/setup-test-env.sh installs them). Without it, on CI the postgres tests fail.
if [ -z "${PITLAKE_TEST_PG_URL:-}" ] && compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  pg_dir="$(mktemp -d /tmp/pitlake-pg.XXXXXX)"
  trap 'bash scripts/start-postgres.sh --stop "$pg_dir"' EXIT
  if pg_url="$(bash scripts/start-postgres.sh "$pg_dir")"; then
    export PITLAKE_TEST_PG_URL="$pg_url"
  else
    echo "warning: could not start PostgreSQL; its catalog tests are skipped here and fail on CI" >&2
  fi
fi
.venv/bin/python -m pytest -q "$@"
rc=$?
if [ $rc -eq 5 ]; then echo "no tests collected: failing" >&2; exit 1; fi
exit $rc
