"""The nightly as an operator runs it: `pitlake ingest --date D` (the Prefect nightly flow and
the live Tushare client over HTTP) against the simulated vendor served on loopback.

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_nightly_flow --day 2025-04-28 \
        --latency 0.15 --out benchmarks/out/nightly-flow

The simulator (`benchmarks/simvendor/http.py`, quotas as in bench_nightly) serves from this
process; pitlake runs in a child process with PITLAKE_TUSHARE_URL pointing at it, a test token,
and its token buckets at the simulator's quotas (`bench_nightly.bucket_env`). Unlike
bench_nightly, nothing of pitlake is called directly: the command, its Prefect flow run, its
task runner, the live client's HTTP requests and its retries are the ones users run.

Reports the command's wall (it includes starting Python, Prefect's temporary server and the
flow run), the run's own wall from the catalog's runs table (start_run → finish_run inside the
flow), calls per endpoint as the simulator saw them, and both walls against the quota bound.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks.bench_nightly import QUOTA, bucket_env, quota_store
from benchmarks.simvendor import SimClient, SimConfig, SimMarket
from benchmarks.simvendor.http import running_server
from pitlake.lake.catalog import Catalog

TOKEN = "bench-nightly-flow-token"
# The datasets this benchmark has always run (the simulator models their answers in full;
# bench_nightly and bench_scaleout run the whole nightly).
DATASETS = ["quotes", "adj_factors", "valuation", "dragon_tiger", "financials"]
QUIET = {
    "PITLAKE_OFFLINE": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "GX_ANALYTICS_ENABLED": "false",
    "TQDM_DISABLE": "1",
}


def run(day: date, latency: float, out: Path, symbols: int) -> dict[str, Any]:
    if out.exists():
        shutil.rmtree(out)
    market = SimMarket(n_symbols=symbols)
    client = SimClient(market, SimConfig(latency=latency, quota=QUOTA, today=day))
    pitlake = Path(sys.executable).parent / "pitlake"
    with running_server(client, tokens={TOKEN}) as server:
        env = {
            **os.environ,
            **QUIET,
            **bucket_env(quota_url=quota_store(out)),
            "PITLAKE_TUSHARE_URL": server.url,
            "TUSHARE_TOKEN": TOKEN,
        }
        env.pop("PREFECT_API_URL", None)  # the command starts its own temporary server
        argv = [
            str(pitlake),
            "ingest",
            "--date",
            day.isoformat(),
            "--vendors",
            "tushare",
            "--datasets",
            ",".join(DATASETS),
            "--lake",
            str(out),
            "--not-ready-retries",
            "0",
            "--json",
        ]
        t0 = time.perf_counter()
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        replies = dict(server.replies)
    if proc.returncode != 0:
        print(proc.stdout[-4000:], proc.stderr[-4000:], file=sys.stderr)
    summary = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None
    catalog = Catalog(None, lake_root=out)
    try:
        [record] = [r for r in catalog.runs() if r.flow == "nightly"]
    finally:
        catalog.close()
    run_wall = (record.ended_at - record.started_at).total_seconds() if record.ended_at else None
    calls = {ep: len([k for k in client.log.attempts if k[0] == ep]) for ep in client.log.counts()}
    bound = max(60.0 * n / QUOTA[ep] for ep, n in calls.items())
    return {
        "day": day.isoformat(),
        "latency_s": latency,
        "symbols": symbols,
        "exit_code": proc.returncode,
        "command_wall_s": round(wall, 2),
        "flow_run_wall_s": round(run_wall, 2) if run_wall is not None else None,
        "calls_per_endpoint": calls,
        "http_replies": replies,
        "quota_bound_s": round(bound, 2),
        "ratio_command_to_bound": round(wall / bound, 2),
        "ratio_run_to_bound": round(run_wall / bound, 2) if run_wall else None,
        "statuses": {
            d["dataset"]: [d["status"], d["rows"]] for d in (summary or {}).get("datasets", [])
        },
        "load_average_after": os.getloadavg(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--day", default="2025-04-28")
    ap.add_argument("--latency", type=float, default=0.15)
    ap.add_argument("--symbols", type=int, default=5300)
    ap.add_argument("--out", default="benchmarks/out/nightly-flow")
    a = ap.parse_args()
    print(json.dumps(run(date.fromisoformat(a.day), a.latency, Path(a.out), a.symbols), indent=1))


if __name__ == "__main__":
    main()
