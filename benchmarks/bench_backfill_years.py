"""Twenty years of the whole market at the real quotas, as an operator runs it, killed at a
random point and rerun (issue 31's second "done when", decision 59).

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_backfill_years --out benchmarks/out/years
    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_backfill_years \
        --range 2024-01-01..2024-03-31 --symbols 200 --out benchmarks/out/years-short

The HTTP simulator (`benchmarks/simvendor/http.py`, served from this process: 5,300 symbols,
150 ms per call, 500 calls/min per by-date endpoint as in bench_nightly's QUOTA) answers every
run through pitlake's live Tushare client; the runs share the token's quota (PITLAKE_QUOTA_URL,
a SQLite file beside the output) and each is the real command in its own process group (its
ephemeral Prefect server is a child):

- run A: `pitlake ingest --start --end --datasets quotes,adj_factors,valuation` into lake A,
  uninterrupted: its wall, the quota floor of its calls (per endpoint calls ÷ quota; the
  endpoints run together, so the max), wall ÷ floor, the refusals (must be 0), the peak RSS of
  the ingest process tree, and when each year's last unit reached the ledger;
- run B: the same command into lake B, SIGKILLed (the whole process group) once B's ledger
  holds K of A's fetched units, K drawn with `--seed` in 20–80 %; then the same command again
  into lake B, to completion. The rerun must fetch exactly the units B's ledger lacked;
- lake B must equal lake A: per dataset the rows, distinct (key, known_at) and an
  order-independent checksum of every column but run_id and ingested_at (bench_faults'
  `lake_facts`), no temp file, every Parquet file readable, and the same fetched units in the
  ledger.

Peak RSS of a run: `tree_sampled_mib` is the largest sum of VmRSS over the ingest process and
its descendants, sampled every 0.5 s; `ingest_hwm_mib` the ingest process's own VmHWM (its
exact peak, as last read); `ru_maxrss_mib` what wait4 reports for the ingest process (the
largest of it and the descendants it waited for). The simulator's peak RSS is this process's.
Prints a JSON summary (also written to OUT/summary.json) and exits 1 if the lakes differ, a
call was refused, or the rerun fetched anything but what was missing. `--skip-a LAKE` reuses a
finished run A (its numbers are read from LAKE.run.json when that holds the same arguments)."""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from benchmarks.bench_backfill import RssSampler
from benchmarks.bench_faults import KEYS, lake_facts, ledger_done, ledger_entries
from benchmarks.bench_nightly import QUOTA, bucket_env, calls_per_endpoint, quota_floor, quota_store
from benchmarks.bench_scaleout import QUIET
from benchmarks.simvendor import SimClient, SimConfig, SimMarket
from benchmarks.simvendor.http import SimHTTPServer, running_server
from pitlake.vendors.ratelimit import rate_config

TOKEN = "bench-years-token"
MIB = 1024 * 1024


def ingest_cmd(lake: Path, window: tuple[date, date], datasets: list[str]) -> list[str]:
    """The operator's command: one `pitlake ingest` process, the live Tushare client."""
    return [
        *(str(Path(sys.executable).parent / "pitlake"), "ingest"),
        *("--start", str(window[0]), "--end", str(window[1]), "--datasets", ",".join(datasets)),
        *("--vendors", "tushare", "--lake", str(lake), "--json"),
    ]


def tree_rss(pid: int) -> tuple[float, float]:
    """(VmRSS summed over `pid` and its descendants, `pid`'s own VmHWM), in MiB."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
        hwm = 0.0
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) / 1024
    except (psutil.Error, OSError):
        return 0.0, 0.0
    total = 0
    for p in procs:
        with suppress(psutil.Error):
            total += p.memory_info().rss
    return total / MIB, hwm


def vendor_seen(client: SimClient, server: SimHTTPServer) -> tuple[dict[str, int], int]:
    """The calls the simulator counted per endpoint so far, and the refusals it sent."""
    return calls_per_endpoint(client.log), server.replies.get("rate_limit", 0)


def ingest(
    cmd: list[str],
    env: dict[str, str],
    log: Path,
    seen: Callable[[], tuple[dict[str, int], int]],
    stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Run `cmd` in its own process group; with `stop`, SIGKILL the group once it says so.
    What the vendor saw of this run is the difference of `seen` before and after."""
    calls0, refused0 = seen()
    cpu0 = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])  # the simulator's, mostly
    started = datetime.now(UTC).replace(tzinfo=None)  # the ledger's recorded_at: naive UTC
    t0 = time.perf_counter()
    tree = hwm = 0.0
    killed_at: float | None = None
    with open(log, "w") as err, open(log.with_suffix(".summary.json"), "w+") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, start_new_session=True)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            now_tree, now_hwm = tree_rss(proc.pid)
            tree, hwm = max(tree, now_tree), max(hwm, now_hwm)
            if stop is not None and killed_at is None and stop():
                os.killpg(proc.pid, signal.SIGKILL)
                killed_at = time.perf_counter() - t0
            time.sleep(0.2 if stop is not None else 0.5)  # a kill lands close to its point
        proc.returncode = os.waitstatus_to_exitcode(status)
        with suppress(ProcessLookupError):  # anything of the group left (a Prefect server)
            os.killpg(proc.pid, signal.SIGKILL)
        out.seek(0)
        text = out.read()
    wall = time.perf_counter() - t0
    simulator_cpu = sum(resource.getrusage(resource.RUSAGE_SELF)[:2]) - cpu0
    calls1, refused1 = seen()
    calls = {ep: n - calls0.get(ep, 0) for ep, n in calls1.items() if n > calls0.get(ep, 0)}
    summary = json.loads(text) if text.strip().startswith("{") else {}
    floor = quota_floor(calls)
    margin = rate_config("tushare", bucket_env()).margin
    return {
        "exit": proc.returncode,
        "wall_s": round(wall, 1),
        "killed_after_s": None if killed_at is None else round(killed_at, 1),
        "calls_per_endpoint": calls,
        "refused": refused1 - refused0,
        "quota_floor_s": round(floor, 1),
        "paced_floor_s": round(floor / (1 - margin), 1),  # pitlake paces `margin` below
        "wall_to_floor": round(wall / floor, 2) if floor else None,
        # CPU seconds (user + system) of the ingest process and the children it waited for,
        # and of this process (the simulator) meanwhile: on 2 cores, CPU against the floor
        # says whether the run was quota-bound or CPU-bound.
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "simulator_cpu_s": round(simulator_cpu, 1),
        "units": sum(d["units"] for d in summary.get("datasets", [])),
        "statuses": {d["dataset"]: d["status"] for d in summary.get("datasets", [])},
        "peak_rss": {
            "tree_sampled_mib": round(tree, 1),
            "ingest_hwm_mib": round(hwm, 1),
            "ru_maxrss_mib": round(usage.ru_maxrss / 1024, 1),
        },
        "started_utc": started.isoformat(),
        "log": str(log),
    }


def per_year(lake: Path, started_utc: str) -> dict[str, dict[str, Any]]:
    """Per year of sessions: the fetched units, and seconds from the start to the last one."""
    t0 = datetime.fromisoformat(started_utc)
    out: dict[str, dict[str, Any]] = {}
    for (_ds, day), (_run, at) in sorted(ledger_entries(lake).items()):
        y = out.setdefault(day[:4], {"units": 0, "done_at_s": 0.0})
        y["units"] += 1
        y["done_at_s"] = max(
            y["done_at_s"], round((datetime.fromisoformat(at) - t0).total_seconds(), 1)
        )
    return out


def compare(a: Path, b: Path, datasets: list[str]) -> dict[str, Any]:
    """Lake B against lake A, as a reader sees them."""
    fa, fb = lake_facts(a), lake_facts(b)
    return {
        "same_rows": all(ds in fa and fa.get(ds) == fb.get(ds) for ds in datasets),
        "duplicates": [
            ds
            for ds in datasets
            if fb.get(ds, {}).get("rows") != fb.get(ds, {}).get("distinct_key_versions")
        ],
        "ledger_equal": ledger_done(a) == ledger_done(b),
        "tmp_files": fa["tmp_files"] + fb["tmp_files"],
        "unreadable": fa["unreadable"] + fb["unreadable"],
        "A": {ds: fa.get(ds) for ds in datasets},
        "B": {ds: fb.get(ds) for ds in datasets},
    }


def run(a: argparse.Namespace, window: tuple[date, date]) -> dict[str, Any]:
    datasets = a.datasets.split(",")
    args = {"range": a.range, "datasets": datasets, "symbols": a.symbols, "latency_s": a.latency}
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    lake_a, lake_b = (Path(a.skip_a) if a.skip_a else out / "A"), out / "B"
    for lake in [lake_b] if a.skip_a else [lake_a, lake_b]:
        shutil.rmtree(lake, ignore_errors=True)
    client = SimClient(
        SimMarket(n_symbols=a.symbols), SimConfig(a.latency, quota=QUOTA, today=window[1])
    )
    env = {**os.environ, **QUIET, **bucket_env(quota_url=quota_store(out / "vendor"))}
    env.pop("PREFECT_API_URL", None)  # Prefect's ephemeral server, as an operator's run has
    env.update({"PREFECT_HOME": str((out / "prefect").resolve()), "TUSHARE_TOKEN": TOKEN})
    sampler = RssSampler(every=1.0)
    sampler.start()
    load_before = os.getloadavg()
    with running_server(client, tokens={TOKEN}) as server:
        env["PITLAKE_TUSHARE_URL"] = server.url
        seen = lambda: vendor_seen(client, server)  # noqa: E731
        if a.skip_a:
            kept = Path(f"{lake_a}.run.json")
            old = json.loads(kept.read_text()) if kept.exists() else {}
            run_a = old.get("run_a") if old.get("args") == args else None
        else:
            print(f"run A into {lake_a} ...", file=sys.stderr, flush=True)
            run_a = ingest(ingest_cmd(lake_a, window, datasets), env, out / "A.log", seen)
            run_a["per_year"] = per_year(lake_a, run_a["started_utc"])
            Path(f"{lake_a}.run.json").write_text(json.dumps({"args": args, "run_a": run_a}))
        units_a = ledger_done(lake_a)
        if not units_a:
            sys.exit(f"lake A ({lake_a}) holds no fetched unit: nothing to compare with")
        k = random.Random(a.seed).randint(len(units_a) // 5, len(units_a) * 4 // 5)
        print(f"run B, killed at {k} of {len(units_a)} units ...", file=sys.stderr, flush=True)
        killed = ingest(
            ingest_cmd(lake_b, window, datasets),
            env,
            out / "B-killed.log",
            seen,
            stop=lambda: len(ledger_done(lake_b)) >= k,
        )
        at_kill = ledger_entries(lake_b)
        print(
            f"killed with {len(at_kill)} units in B's ledger; rerun ...",
            file=sys.stderr,
            flush=True,
        )
        rerun = ingest(ingest_cmd(lake_b, window, datasets), env, out / "B-rerun.log", seen)
    simulator_peak = sampler.stop()
    after = ledger_entries(lake_b)
    fetched = {u for u, (run_id, _) in after.items() if at_kill.get(u, ("",))[0] != run_id}
    pending = units_a - set(at_kill)
    rerun["fetched_only_missing"] = fetched == pending and rerun["units"] == len(pending)
    # A kill that left nothing to fetch proves nothing (a short range ends between two polls).
    left_work = killed["exit"] == -signal.SIGKILL and len(pending) > 0
    lakes = compare(lake_a, lake_b, datasets)
    refused = sum(r["refused"] for r in (run_a or {}, killed, rerun) if r)
    passed = (
        lakes["same_rows"]
        and lakes["ledger_equal"]
        and not lakes["duplicates"]
        and not lakes["tmp_files"]
        and not lakes["unreadable"]
        and refused == 0
        and rerun["exit"] == 0
        and rerun["fetched_only_missing"]
        and left_work
        and (a.skip_a or run_a["exit"] == 0)
    )
    return {
        **args,
        "quota_per_min": {ep: QUOTA[ep] for ep in sorted((run_a or rerun)["calls_per_endpoint"])},
        "command": " ".join(ingest_cmd(Path("LAKE"), window, datasets)[1:]),
        "run_a": run_a,
        "kill": {
            "seed": a.seed,
            "at_units": k,
            "of_units": len(units_a),
            "ledger_at_kill": len(at_kill),
            "fraction": round(len(at_kill) / max(len(units_a), 1), 3),
            "left_work": left_work,
        },
        "killed_run": killed,
        "rerun": {**rerun, "pending_at_kill": len(pending), "fetched": len(fetched)},
        "simulator_peak_rss_mib": round(simulator_peak, 1),
        "lakes": lakes,
        "refused": refused,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "passed": bool(passed),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--range", default="2006-01-01..2025-12-31", metavar="START..END")
    ap.add_argument("--datasets", default="quotes,adj_factors,valuation")
    ap.add_argument("--symbols", type=int, default=5300, help="the market's size")
    ap.add_argument("--latency", type=float, default=0.15, help="seconds per vendor call")
    ap.add_argument("--seed", type=int, default=59, help="draws the kill point")
    ap.add_argument("--out", default="benchmarks/out/years", help="lakes, logs, summary.json")
    ap.add_argument("--skip-a", default=None, metavar="LAKE", help="reuse a finished run A")
    a = ap.parse_args()
    unknown = sorted(set(a.datasets.split(",")) - set(KEYS))
    if unknown:
        ap.error(f"datasets the lake comparison knows: {', '.join(KEYS)}; not {unknown}")
    try:
        lo, _, hi = a.range.partition("..")
        window = (date.fromisoformat(lo), date.fromisoformat(hi))
    except ValueError:
        ap.error(f"--range wants YYYY-MM-DD..YYYY-MM-DD, got {a.range!r}")
    result = run(a, window)
    text = json.dumps(result, ensure_ascii=False, indent=1, default=str)
    (Path(a.out) / "summary.json").write_text(text)
    print(text)
    sys.exit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()
