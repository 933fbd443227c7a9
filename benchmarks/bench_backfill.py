"""Backfill from the simulated vendor (quota lifted, latency 0): rows/s end to end and peak RSS.

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_backfill --start 2024-01-01 \
        --end 2024-12-31 --datasets quotes,adj_factors --out benchmarks/out/backfill-1y
    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_backfill --start 2005-01-01 \
        --end 2025-12-31 --datasets financials --fin-symbols 100 --out benchmarks/out/fin

Runs pitlake.ingest.backfill_chunk per dataset per month chunk, in the flow's order (the
trade-dated datasets, then statements), in this one process: fetch (the Tushare adapter's
normalisation), gate, write, ledger. RSS is sampled every 0.2 s from /proc/self/status.
Afterwards: lake size and as-of read latencies through pitlake.lake.query.Lake.
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
from pitlake import ingest as core
from pitlake.vendors.retry import RetryPolicy


class RssSampler(threading.Thread):
    """Peak resident set size of this process, sampled (MiB)."""

    def __init__(self, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.every, self.peak, self._halt = every, 0.0, threading.Event()

    @staticmethod
    def rss_mib() -> float:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def run(self) -> None:
        while not self._halt.is_set():
            self.peak = max(self.peak, self.rss_mib())
            self._halt.wait(self.every)

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


def ingest(
    env: core.RunEnv,
    datasets: list[str],
    start: date,
    end: date,
    symbols: tuple[str, ...] | None,
    log: Any = print,
) -> list[core.UnitOutcome]:
    """The backfill flow's body without Prefect: stage 1 trade-dated, stage 2 statements."""
    outcomes: list[core.UnitOutcome] = []
    for stage in (
        [d for d in datasets if d != "financials"],
        [d for d in datasets if d == "financials"],
    ):
        for ds in stage:
            for lo, hi in core.chunks_for(ds, start, end):
                syms = symbols if ds == "financials" else None
                got = core.backfill_chunk(env, ds, lo, hi, syms)
                outcomes += got
                log(f"{ds} {lo}..{hi}: {len(got)} units, {sum(o.rows for o in got):,} rows")
    return outcomes


def reads(root: Path, start: date, end: date, symbols: list[str], reps: int = 5) -> dict[str, Any]:
    from pitlake.lake.query import Lake

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
    env = core.RunEnv(
        root,
        run_id=f"bench-backfill-{os.getpid()}",
        router=sim_router(client, policy=RetryPolicy.no_wait()),
    )
    fin = tuple(market.symbols[: a.fin_symbols]) if a.fin_symbols else None
    outcomes = ingest(env, a.datasets.split(","), start, end, fin)
    wall = time.perf_counter() - t0
    env.close()
    peak = sampler.stop()
    summary = core.summarize(outcomes)
    rows = sum(o.rows for o in outcomes)
    result: dict[str, Any] = {
        "window": f"{start}..{end}",
        "datasets": a.datasets,
        "symbols": a.symbols,
        "fin_symbols": a.fin_symbols or None,
        "wall_s": round(wall, 1),
        "rows": rows,
        "rows_per_s": round(rows / wall),
        "per_dataset": {
            d["dataset"]: {"units": d["units"], "rows": d["rows"], "statuses": d["statuses"]}
            for d in summary["datasets"]
        },
        "vendor_calls": client.log.counts(),
        "peak_rss_mib_sampled": round(peak, 1),
        "ru_maxrss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "lake_bytes": lake_size(root),
    }
    if not a.no_reads:
        result["reads"] = reads(root, start, end, market.symbols)
    print(json.dumps(result, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
