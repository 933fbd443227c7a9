"""Scale-out on one token: the whole nightly over a 2-worker Dask cluster, and at the same time
a second ingesting process (`pitlake ingest`) on the same Tushare token, against one simulated
vendor that enforces the quota for both (issue 31, decision 53).

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_scaleout --day 2025-04-28 \
        --latency 0.15 --out benchmarks/out/scaleout

The simulator (`benchmarks/simvendor/http.py`, quotas as in bench_nightly) serves on loopback
from this process; a Prefect server runs for both runs (Dask workers need one). The Dask run is
`flows.nightly` with prefect-dask's DaskTaskRunner on a `distributed.LocalCluster` (2 worker
processes); the second process is the command operators run. Both reach the vendor through the
live Tushare client, each paced by the token's shared quota (PITLAKE_QUOTA_URL: a SQLite file
beside the output). Reports the refusals the vendor sent, both walls, the calls per endpoint and
per dataset of the two runs together, and the wall against their quota floor (the time the quota
alone needs for all the calls of both).

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_scaleout --backfill 2023-01-01..2024-12-31 \
        --datasets quotes,adj_factors,valuation --symbols 1000 --latency 0.15

`--backfill START..END` runs the issue's case instead: the backfill flow over the Dask cluster
and, at the same time, `pitlake ingest --start --end` of the same range and datasets into a
second lake, on the same token. The quota floor counts calls, not rows: by-date datasets make
one call per session whatever the market's size, so `--symbols` sets the CPU load, not the
floor. Where the wall above the floor goes: start-up (from the start to the vendor's first
call), the calls' span (first to last), and the tail (last call to the end: the last gate and
commit), each measured at the simulator."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from pitlake.flows.runtime import PRELOAD

from benchmarks.bench_nightly import (
    QUOTA,
    Stamped,
    bucket_env,
    calls_by_dataset,
    calls_per_endpoint,
    pacing,
    quota_floor,
    quota_store,
)
from benchmarks.simvendor import SimClient, SimConfig, SimMarket
from benchmarks.simvendor.http import running_server

TOKEN = "bench-scaleout-token"
QUIET = {
    "PITLAKE_OFFLINE": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    "PREFECT_LOGGING_LOGGERS_PREFECT_SERVER_LEVEL": "CRITICAL",
    "GX_ANALYTICS_ENABLED": "false",
    "TQDM_DISABLE": "1",
}


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def prefect_server(home: Path) -> Iterator[str]:
    """A Prefect server on loopback for the benchmark's runs; stopped by its process group."""
    home.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    env = {**os.environ, **QUIET, "PREFECT_HOME": str(home)}
    env.pop("PREFECT_API_URL", None)
    prefect = Path(sys.executable).parent / "prefect"
    with open(home / "server.log", "w") as log:
        proc = subprocess.Popen(
            [str(prefect), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}/api"
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the Prefect server did not start (see server.log)")
                time.sleep(0.5)
            yield url
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def run(
    day: date,
    latency: float,
    out: Path,
    symbols: int,
    per_process: bool = False,
    window: tuple[date, date] | None = None,
    datasets: list[str] | None = None,
    cold_workers: bool = False,
) -> dict[str, Any]:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    today = window[1] if window else day
    client = SimClient(SimMarket(n_symbols=symbols), SimConfig(latency, quota=QUOTA, today=today))
    backend = Stamped(client)
    if window:
        what = ["--start", str(window[0]), "--end", str(window[1])]
        what += ["--datasets", ",".join(datasets)] if datasets else []
    else:
        what = ["--date", str(day), "--not-ready-retries", "0"]
    with prefect_server(out / "prefect") as api, running_server(backend, tokens={TOKEN}) as server:
        os.environ.update(
            {
                **QUIET,
                **bucket_env(quota_url="process" if per_process else quota_store(out / "quota")),
                "PREFECT_API_URL": api,
                "PREFECT_HOME": str(out / "prefect"),
                "PITLAKE_TUSHARE_URL": server.url,
                "TUSHARE_TOKEN": TOKEN,
            }
        )
        from distributed import LocalCluster
        from pitlake.flows.backfill import backfill
        from pitlake.flows.nightly import nightly
        from prefect_dask import DaskTaskRunner

        # The cluster is up before the clock starts, as an operator's is (PITLAKE_DASK_ADDRESS
        # joins a running one), its workers started with pitlake's preload (the task modules
        # imported, the gate built: flows/dask_preload.py, as `runtime.task_runner` does).
        # `--cold-workers`: without it, nothing of pitlake imported before the first task.
        c0 = time.perf_counter()
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=2,
            processes=True,
            dashboard_address=None,
            preload=[] if cold_workers else [PRELOAD],
        )
        if not cold_workers:
            from distributed import Client
            from pitlake.expectations.warm import ready

            with Client(cluster) as warm:
                warm.run(ready)  # the preload's gate build finished on every worker
        cluster_start = time.perf_counter() - c0
        load_before = os.getloadavg()
        t0 = time.perf_counter()
        second = subprocess.Popen(
            [
                *(str(Path(sys.executable).parent / "pitlake"), "ingest", *what),
                *("--vendors", "tushare", "--lake", str(out / "second"), "--json"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        with cluster:
            runner = DaskTaskRunner(address=cluster.scheduler_address)
            common = {"source": "vendors:tushare", "lake": str(out / "dask"), "return_state": True}
            if window:
                state = backfill.with_options(task_runner=runner)(
                    start=str(window[0]), end=str(window[1]), datasets=datasets, **common
                )
            else:
                state = nightly.with_options(task_runner=runner)(
                    trade_date=day.isoformat(), not_ready_retries=0, **common
                )
            dask_wall = time.perf_counter() - t0
        stdout, stderr = second.communicate(timeout=3600)
        wall = time.perf_counter() - t0
        replies = dict(server.replies)
    dask_summary = state.result(raise_on_failure=False)
    second_summary = json.loads(stdout) if stdout.strip().startswith("{") else None
    if second_summary is None:
        print(stderr[-3000:], file=sys.stderr)
    calls = calls_per_endpoint(client.log)
    by_dataset = calls_by_dataset(client.log)
    floor = quota_floor(calls)
    stamps = sorted(t for t, _ in backend.stamps)
    # Each call's arrival (s from the start) and endpoint, for a look at where pacing slackened.
    (out / "stamps.json").write_text(
        json.dumps([(round(t - t0, 3), ep) for t, ep in backend.stamps])
    )
    split = {
        "start_up_s": round(stamps[0] - t0, 2) if stamps else None,
        "calls_span_s": round(stamps[-1] - stamps[0], 2) if stamps else None,
        "tail_s": round(t0 + wall - stamps[-1], 2) if stamps else None,
    }
    return {
        "what": f"backfill {window[0]}..{window[1]} {datasets}" if window else "nightly",
        "day": day.isoformat(),
        "latency_s": latency,
        "symbols": symbols,
        "dask_workers": 2,
        "workers": "cold" if cold_workers else "preloaded",
        "quota": "per process" if per_process else "shared",
        "refused": replies.get("rate_limit", 0),
        "http_replies": replies,
        "wall_s": round(wall, 2),
        "dask_run_wall_s": round(dask_wall, 2),
        "cluster_start_s_not_counted": round(cluster_start, 2),
        "second_process_exit": second.returncode,
        "calls_per_endpoint": calls,
        "quota_floor_s": round(floor, 2),
        "quota_floor_s_per_dataset": {
            ds: round(quota_floor(c), 2) for ds, c in sorted(by_dataset.items())
        },
        "ratio_wall_to_floor": round(wall / floor, 2) if floor else None,
        "wall_split": split,
        "pacing_per_endpoint": pacing(backend.stamps, t0),
        "statuses_dask": {d["dataset"]: d["status"] for d in dask_summary["datasets"]},
        "statuses_second": {
            d["dataset"]: d["status"] for d in (second_summary or {}).get("datasets", [])
        },
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--day", default="2025-04-28")
    ap.add_argument("--latency", type=float, default=0.15)
    ap.add_argument("--symbols", type=int, default=5300)
    ap.add_argument("--out", default="benchmarks/out/scaleout")
    ap.add_argument(
        "--per-process", action="store_true", help="each process its own buckets (the old way)"
    )
    ap.add_argument("--backfill", default=None, metavar="START..END", help="backfill a range")
    ap.add_argument("--datasets", default="quotes,adj_factors,valuation", help="with --backfill")
    ap.add_argument("--cold-workers", action="store_true", help="workers without pitlake's preload")
    a = ap.parse_args()
    window = None
    if a.backfill:
        lo, _, hi = a.backfill.partition("..")
        window = (date.fromisoformat(lo), date.fromisoformat(hi))
    result = run(
        date.fromisoformat(a.day),
        a.latency,
        Path(a.out),
        a.symbols,
        a.per_process,
        window,
        a.datasets.split(",") if window else None,
        a.cold_workers,
    )
    print(json.dumps(result, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
