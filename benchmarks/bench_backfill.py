"""Backfill from the simulated vendor (quota lifted, latency 0): rows/s end to end and peak RSS.

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_backfill --start 2024-01-01 \
        --end 2024-12-31 --datasets quotes,adj_factors --out benchmarks/out/backfill-1y
    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_backfill --start 2005-01-01 \
        --end 2025-12-31 --datasets financials --fin-symbols 100 --out benchmarks/out/fin

Runs pitlake.pipeline.backfill.backfill_chunk per dataset per month chunk, in the flow's order (the
trade-dated datasets, then statements), in this one process: fetch (the Tushare adapter's
normalisation), gate, write, ledger. RSS is sampled every 0.2 s from /proc/self/status.
Afterwards: lake size and as-of read latencies through pitlake.read.lake.Lake.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks.simvendor import SimClient, SimConfig, SimMarket, sim_router
from pitlake.pipeline import run as run_module
from pitlake.pipeline.backfill import backfill_chunk
from pitlake.pipeline.planning import chunks_for
from pitlake.pipeline.resources import RunEnv
from pitlake.pipeline.summary import summarize
from pitlake.pipeline.units import UnitOutcome
from pitlake.vendors.retry import RetryPolicy


class RssSampler(threading.Thread):
    """Peak resident set size of this process, sampled (MiB)."""

    def __init__(self, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.every, self.peak, self._halt = every, 0.0, threading.Event()
        self.window_peak = 0.0

    @staticmethod
    def rss_mib() -> float:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def run(self) -> None:
        while not self._halt.is_set():
            rss = self.rss_mib()
            self.peak = max(self.peak, rss)
            self.window_peak = max(self.window_peak, rss)
            self._halt.wait(self.every)

    def take_window_peak(self) -> float:
        """The peak since the previous call (a per-year peak when called once a year)."""
        peak, self.window_peak = max(self.window_peak, self.rss_mib()), 0.0
        return peak

    def stop(self) -> float:
        self._halt.set()
        self.join()
        return self.peak


def lake_size(root: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in root.rglob("*"):
        if p.is_file():
            top = p.relative_to(root).parts[0]
            out[top] = out.get(top, 0) + p.stat().st_size
    return out


class PhaseTimer:
    """Wall seconds spent in each stage of the chunk body, measured by wrapping the module
    functions `run_units` calls (fetch, gate, commit) and the store's write."""

    def __init__(self, env: RunEnv) -> None:
        self.seconds: dict[str, float] = {"fetch": 0.0, "gate": 0.0, "commit": 0.0, "write": 0.0}
        for name in ("fetch", "gate", "commit"):
            setattr(run_module, name, self._timed(name, getattr(run_module, name)))
        env.store.write = self._timed("write", env.store.write)  # type: ignore[method-assign]

    def _timed(self, name: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - t

        return wrapper

    def snapshot(self) -> dict[str, float]:
        out = {k: round(v, 1) for k, v in self.seconds.items()}
        # commit includes the write; report the ledger/catalog/quarantine rest on its own
        out["commit_minus_write"] = round(self.seconds["commit"] - self.seconds["write"], 1)
        return out


def chunks(dataset: str, start: date, end: date, months: int) -> list[tuple[date, date]]:
    """The flow's chunks (`chunks_for`), or for an experiment `months` consecutive month
    chunks merged into one (never across a year: a chunk then writes one year partition)."""
    base = chunks_for(dataset, start, end)
    if months <= 1 or dataset == "financials":
        return base
    out: list[tuple[date, date]] = []
    for lo, hi in base:
        prev = out[-1] if out else None
        same = prev is not None and prev[0].year == lo.year
        if prev is not None and same and (prev[0].month - 1) // months == (lo.month - 1) // months:
            out[-1] = (prev[0], hi)
        else:
            out.append((lo, hi))
    return out


def ingest(
    env: RunEnv,
    datasets: list[str],
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    log: Any = print,
    sampler: RssSampler | None = None,
    months_per_chunk: int = 1,
) -> list[UnitOutcome]:
    """The backfill flow's body without Prefect: stage 1 trade-dated, stage 2 statements.

    Logs one line per chunk, and per dataset-year one JSON line (`YEAR {...}`) with that
    year's rows, wall, rows/s and the RSS peak seen during it: the bounded-memory evidence."""
    outcomes: list[UnitOutcome] = []
    t0 = time.perf_counter()
    total = 0
    for stage in (
        [d for d in datasets if d != "financials"],
        [d for d in datasets if d == "financials"],
    ):
        for ds in stage:
            year: dict[str, Any] | None = None
            for lo, hi in [*chunks(ds, start, end, months_per_chunk), (None, None)]:
                if year is not None and (lo is None or lo.year != year["year"]):
                    wall = time.perf_counter() - year.pop("t")
                    year.update(wall_s=round(wall, 1), rows_per_s=round(year["rows"] / wall))
                    if sampler is not None:
                        year["peak_rss_mib"] = round(sampler.take_window_peak(), 1)
                    log("YEAR " + json.dumps(year), flush=True)
                    year = None
                if lo is None or hi is None:
                    break
                if year is None:
                    year = {"dataset": ds, "year": lo.year, "rows": 0, "t": time.perf_counter()}
                syms = symbols if ds == "financials" else None
                got = backfill_chunk(env, ds, lo, hi, syms)
                outcomes += got
                rows = sum(o.rows for o in got)
                year["rows"] += rows
                total += rows
                rss = f", rss {RssSampler.rss_mib():.0f} MiB" if sampler else ""
                log(
                    f"{ds} {lo}..{hi}: {len(got)} units, {rows:,} rows; "
                    f"total {total:,} rows in {time.perf_counter() - t0:.0f} s{rss}",
                    flush=True,
                )
    return outcomes


def reads(root: Path, start: date, end: date, symbols: list[str], reps: int = 5) -> dict[str, Any]:
    from pitlake.read.lake import Lake

    lake = Lake(root, catalog_url=f"sqlite:///{root.resolve() / 'catalog.db'}")
    day = end
    tests = {
        "one_symbol_history": lambda: lake.quotes(symbols[0], start=start, end=end, as_of=end),
        "one_date_cross_section": lambda: lake.quotes(symbols, start=day, end=day, as_of=day),
        "all_market_financials_as_of": lambda: lake.financials(symbols, as_of=end),
    }
    out: dict[str, Any] = {}
    try:
        for name, fn in tests.items():
            times, rows = [], 0
            for _ in range(reps):
                t = time.perf_counter()
                try:
                    r = fn()
                    rows = len(r.data)
                    out[name + "_status"] = str(r.status)
                except Exception as e:  # report, don't crash the benchmark
                    out[name + "_error"] = str(e)[:200]  # type: ignore[assignment]
                    break
                times.append((time.perf_counter() - t) * 1000)
            if times:
                out[name + "_ms"] = round(statistics.median(times), 1)
                out[name + "_rows"] = rows
    finally:
        lake.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--start", required=True)
    ap.add_argument("--end", required=True)
    ap.add_argument("--datasets", default="quotes,adj_factors")
    ap.add_argument("--symbols", type=int, default=5300, help="market size")
    ap.add_argument("--fin-symbols", type=int, default=0, help="statements for the first N only")
    ap.add_argument("--out", required=True)
    ap.add_argument("--keep", action="store_true", help="resume into an existing lake")
    ap.add_argument("--no-reads", action="store_true")
    ap.add_argument(
        "--months-per-chunk",
        type=int,
        default=1,
        help="experiment: trade-dated chunks of N months (the flow uses 1)",
    )
    a = ap.parse_args()
    root = Path(a.out)
    if root.exists() and not a.keep:
        shutil.rmtree(root)
    start, end = date.fromisoformat(a.start), date.fromisoformat(a.end)
    market = SimMarket(n_symbols=a.symbols)
    client = SimClient(market, SimConfig(today=end))
    sampler = RssSampler()
    sampler.start()
    t0 = time.perf_counter()
    env = RunEnv(
        root,
        run_id=f"bench-backfill-{os.getpid()}",
        router=sim_router(client, policy=RetryPolicy.no_wait()),
    )
    fin = tuple(market.symbols[: a.fin_symbols]) if a.fin_symbols else None
    phases = PhaseTimer(env)
    outcomes = ingest(
        env,
        a.datasets.split(","),
        start,
        end,
        fin,
        sampler=sampler,
        months_per_chunk=a.months_per_chunk,
    )
    wall = time.perf_counter() - t0
    env.close()
    peak = sampler.stop()
    summary = summarize(outcomes).to_dict()
    rows = sum(o.rows for o in outcomes)
    result: dict[str, Any] = {
        "window": f"{start}..{end}",
        "datasets": a.datasets,
        "symbols": a.symbols,
        "fin_symbols": a.fin_symbols or None,
        "months_per_chunk": a.months_per_chunk,
        "wall_s": round(wall, 1),
        "rows": rows,
        "rows_per_s": round(rows / wall),
        # CPU seconds of this process (user + system): less sensitive than wall to the other
        # work sharing the machine's 2 cores, so before/after comparisons use it too.
        "cpu_s": round(sum(resource.getrusage(resource.RUSAGE_SELF)[:2]), 1),
        "per_dataset": {
            d["dataset"]: {"units": d["units"], "rows": d["rows"], "statuses": d["statuses"]}
            for d in summary["datasets"]
        },
        "phase_wall_s": phases.snapshot(),
        "vendor_calls": client.log.counts(),
        "peak_rss_mib_sampled": round(peak, 1),
        "ru_maxrss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "lake_bytes": lake_size(root),
        "loadavg_at_end": os.getloadavg(),
    }
    if not a.no_reads:
        result["reads"] = reads(root, start, end, market.symbols)
    print(json.dumps(result, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
