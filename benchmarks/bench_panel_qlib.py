"""Lake.panel beside qlib's own `D.features` on the same data (issue 29): two income items
(revenue, net_profit: the latest period's value as reported, known at each session's close)
for every session × symbol of a synthetic lake, answered by `Lake.panel` and by qlib 0.9.7
(one kernel, `P($$revenue_q)`, `P($$net_profit_q)`) reading `pitlake export qlib`'s directory
of the same lake. The two answers are compared cell for cell (decision 52: qlib's
`P($$x_q)` is the panel's `x`). Each reader runs in its own process (its own peak RSS); the
panel's time is warm (best of the runs after the first), qlib's is its first run and its
best later one (qlib caches nothing across calls here: no expression cache, no server).

    python -m benchmarks.synth --out benchmarks/out/synth-50 --symbols 50 --years 5 --fin-years 6
    python -m benchmarks.bench_panel_qlib --lake benchmarks/out/synth-50 [--runs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ITEMS = ["revenue", "net_profit"]
QLIB_ENV = {"MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"}


def _window(lake_dir: Path) -> tuple[object, object, list[str]]:
    import duckdb

    from benchmarks.synth import DEFAULT_END
    from pitlake.read.lake import Lake

    with Lake(lake_dir) as lake:
        first = DEFAULT_END.replace(year=DEFAULT_END.year - 4, month=1, day=1)
        sessions = lake.trading_calendar.sessions_between(first, DEFAULT_END)
        files = [str(f) for f in lake.store.files("financials")]
    symbols = [
        r[0]
        for r in duckdb.sql(
            f"SELECT DISTINCT symbol FROM read_parquet({files}) ORDER BY symbol"
        ).fetchall()
    ]
    return sessions[0], sessions[-1], symbols


def _panel(lake_dir: Path, runs: int, out: Path) -> dict:
    import pyarrow.parquet as pq

    from pitlake.read.lake import Lake

    start, end, symbols = _window(lake_dir)
    times = []
    with Lake(lake_dir) as lake:
        for _ in range(runs):
            t0 = time.perf_counter()
            table = lake.panel(ITEMS, start, end, universe=symbols).to_arrow()
            times.append(time.perf_counter() - t0)
    pq.write_table(table, out)
    return {"rows": table.num_rows, "times": times}


def _qlib(lake_dir: Path, qlib_dir: Path, runs: int, out: Path) -> dict:
    start, end, symbols = _window(lake_dir)
    home = Path(tempfile.mkdtemp(prefix="bench-qlib-home-"))
    os.environ.update(QLIB_ENV, HOME=str(home))
    os.chdir(home)
    import qlib
    from qlib.data import D

    from pitlake.export.qlib_format import qlib_symbol

    qlib.init(
        provider_uri=str(qlib_dir),
        region="cn",
        kernels=1,
        exp_manager={
            "class": "MLflowExpManager",
            "module_path": "qlib.workflow.expm",
            "kwargs": {"uri": (home / "mlruns").as_uri(), "default_exp_name": "bench"},
        },
    )
    fields = [f"P($${item}_q)" for item in ITEMS]
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        frame = D.features([qlib_symbol(s) for s in symbols], fields, str(start), str(end))
        times.append(time.perf_counter() - t0)
    frame.columns = ITEMS
    frame.reset_index().to_parquet(out)
    shutil.rmtree(home, ignore_errors=True)
    return {"rows": len(frame), "times": times}


def _compare(panel_file: Path, qlib_file: Path) -> dict:
    import numpy as np
    import pandas as pd

    p = pd.read_parquet(panel_file)
    p["instrument"] = p.symbol.str[7:] + p.symbol.str[:6]
    p["datetime"] = pd.to_datetime(p.trade_date)
    p = p.set_index(["instrument", "datetime"]).sort_index()
    q = pd.read_parquet(qlib_file).set_index(["instrument", "datetime"]).sort_index()
    q = q.reindex(p.index)
    equal = 0
    for item in ITEMS:
        a = p[item].to_numpy("float64").astype("float32")
        b = q[item].to_numpy("float64").astype("float32")
        equal += int(np.sum((a == b) | (np.isnan(a) & np.isnan(b))))
    return {
        "cells": len(p) * len(ITEMS),
        "equal": equal,
        "non_null": int(p[ITEMS].notna().sum().sum()),
    }


def _peak_rss_mib() -> float:
    """This process's own peak RSS: VmHWM, which starts afresh at exec (getrusage's ru_maxrss
    keeps the forking parent's high-water mark across the exec on Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(args: list[str]) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.bench_panel_qlib", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lake", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--one", nargs=3, metavar=("READER", "QLIB_DIR", "OUT"))
    a = ap.parse_args()
    if a.one:
        reader, qlib_dir, out = a.one
        result = (
            _panel(a.lake, a.runs, Path(out))
            if reader == "panel"
            else _qlib(a.lake, Path(qlib_dir), a.runs, Path(out))
        )
        result["peak_rss_mib"] = _peak_rss_mib()
        print(json.dumps(result))
        return

    from pitlake.export.qlib import write_qlib
    from pitlake.read.lake import Lake

    start, end, symbols = _window(a.lake)
    work = Path(tempfile.mkdtemp(prefix="bench-panel-qlib-"))
    try:
        t0 = time.perf_counter()
        with Lake(a.lake) as lake:  # the synthetic lake has no ledger for its calendar days
            summary = write_qlib(lake, work / "qlib", start, end, allow_gaps=True)
        export_s = time.perf_counter() - t0
        runs = str(a.runs)
        lake = str(a.lake)
        panel = _child(["--lake", lake, "--runs", runs, "--one", "panel", "-", str(work / "p.pq")])
        ql = _child(
            [
                "--lake",
                lake,
                "--runs",
                runs,
                "--one",
                "qlib",
                str(work / "qlib"),
                str(work / "q.pq"),
            ]
        )
        same = _compare(work / "p.pq", work / "q.pq")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    warm = min(panel["times"][1:] or panel["times"])
    q_first, q_best = ql["times"][0], min(ql["times"][1:] or ql["times"])
    print(
        f"symbols {len(symbols)}, sessions {start} … {end}, rows {panel['rows']:,}; export "
        f"{export_s:.1f} s ({summary.financial_records:,} PIT records); cells equal "
        f"{same['equal']:,} / {same['cells']:,} ({same['non_null']:,} non-null)"
    )
    print("| reader | rows | first s | warm s | peak RSS MiB |")
    print("|---|---:|---:|---:|---:|")
    print(
        f"| Lake.panel | {panel['rows']:,} | {panel['times'][0]:.2f} | {warm:.2f} | "
        f"{panel['peak_rss_mib']:.0f} |"
    )
    print(
        f"| qlib D.features (1 kernel) | {ql['rows']:,} | {q_first:.2f} | {q_best:.2f} | "
        f"{ql['peak_rss_mib']:.0f} |"
    )
    print(f"qlib / panel (warm): {q_best / warm:.0f}x")


if __name__ == "__main__":
    main()
