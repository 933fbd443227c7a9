"""Time the derived limit pools and the consecutive-limit ladder (pitlake.limits,
pitlake.read.market).

    .venv/bin/python -m benchmarks.synth --out /tmp/synthlake --symbols 5000 --years 5
    .venv/bin/python -m benchmarks.bench_limits --lake /tmp/synthlake

1. One session, full market, through the lake: `market.pools` (the up pool with its ladder:
   the session's bars and the sessions before it, as of the cutoff, classified, the ladder
   counted) and `market.overview` (breadth and the pools' sizes) on the synthetic lake's last
   session; medians of `--reps`, cold (a fresh Lake: the window's files scanned) and warm
   (a repeat on the same Lake: its kept days reused). Target ≤ 100 ms.
2. A 20-year ladder history in memory: 5,000 symbols × every XSHG session of 20 years drawn
   with the synthetic market walk (benchmarks.synth.MarketWalk; drawing them is not timed),
   then `limits.classify` + `limits.ladder` over all of it at once. Target ≤ 10 s.
The synthetic lake has no names, so no code is known ST there (ST codes keep ±10 %).
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import date

import numpy as np
import pandas as pd

from benchmarks.synth import MarketWalk, make_symbols
from pitlake import limits
from pitlake.calendar import sessions_between
from pitlake.read import market
from pitlake.read.lake import Lake


def one_session(lake_dir: str, reps: int) -> dict[str, float]:
    """Each read twice over: `cold`, the first read in a fresh `Lake` (its kept days empty,
    so the ladder window's files are scanned: what the first question of a process pays),
    and `warm`, a repeat on the same `Lake` (the kept days reused; the cutoff, versions,
    classification and ladder are worked out again each time, nothing is cached)."""
    last = Lake(lake_dir).trading_calendar.session_on_or_before(date(2025, 12, 31))
    out: dict[str, float] = {}
    reads = {
        "pools + ladder": lambda lake: market.pools(
            lake, last.isoformat(), kind="up", as_of="2026-01-05"
        ),
        "overview": lambda lake: market.overview(lake, last.isoformat(), as_of="2026-01-05"),
    }
    Lake(lake_dir).close()
    for name, read in reads.items():
        first = read(Lake(lake_dir))  # the process's one-off costs (imports, limit table)
        assert first.status == "OK", first.message
        cold, warm = [], []
        for _ in range(reps):
            with Lake(lake_dir) as lake:
                t = time.perf_counter()
                read(lake)
                cold.append(time.perf_counter() - t)
                for _ in range(3):
                    t = time.perf_counter()
                    read(lake)
                    warm.append(time.perf_counter() - t)
        out[f"{name} cold"] = statistics.median(cold) * 1000
        out[f"{name} warm"] = statistics.median(warm) * 1000
        print(
            f"{name}: cold median {out[name + ' cold']:.0f} ms, warm median "
            f"{out[name + ' warm']:.0f} ms over {reps} ({first.meta['rows']} rows)"
        )
    lake = Lake(lake_dir)
    ask = lake.ask("2026-01-05")
    lo = last
    for _ in range(market.LADDER_SESSIONS):
        lo = lake.trading_calendar.previous_session(lo)
    bars = market._bars(lake, lo, last, ask)
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        limits.ladder(limits.classify(bars))
        times.append(time.perf_counter() - t)
    out["derive only"] = statistics.median(times) * 1000
    print(f"derive only (classify + ladder, {len(bars):,} bars): {out['derive only']:.0f} ms")
    return out


def history(symbols: int, years: int) -> float:
    rng = np.random.default_rng(20250601)
    codes = make_symbols(symbols, rng)
    walk = MarketWalk(np.array(codes), rng)
    sessions = sessions_between(date(2025 - years, 1, 1), date(2024, 12, 31))
    parts = []
    for i in range(0, len(sessions), 250):
        chunk = sessions[i : i + 250]
        cols, _ = walk.chunk(chunk)
        parts.append(
            pd.DataFrame(
                {
                    "symbol": pd.Categorical(np.tile(codes, len(chunk)), categories=codes),
                    "trade_date": np.repeat(np.array(chunk, dtype="datetime64[D]"), len(codes)),
                    **{c: cols[c].ravel() for c in ("high", "close", "pre_close", "volume")},
                }
            )
        )
    bars = pd.concat(parts, ignore_index=True)
    print(f"history: {len(bars):,} bars ({len(sessions)} sessions × {symbols} symbols)")
    t = time.perf_counter()
    classified = limits.classify(bars)
    counts = limits.ladder(classified)
    took = time.perf_counter() - t
    top = int(counts[classified["pool"].to_numpy() == limits.UP].max())
    print(f"classify + ladder: {took:.1f} s (highest ladder {top})")
    return took


def with_master(lake_dir: str, out: str) -> str:
    """A lake at `out` that shares `lake_dir`'s quotes (a symlink) and adds a synthetic
    security master of its codes (benchmarks.bench_universe.master: 120,500 rows for 5,000
    codes, every tenth code ST for two years), so the market reads its ST days and first
    trading days as on a real lake. Built once; reused when it exists."""
    import json
    import shutil
    from datetime import datetime, timezone
    from pathlib import Path

    from benchmarks.bench_universe import master
    from pitlake.lake.store import LakeStore

    root, target = Path(lake_dir), Path(out)
    if (target / "curated" / "securities").exists():
        return out
    (target / "curated").mkdir(parents=True, exist_ok=True)
    link = target / "curated" / "quotes"
    if not link.exists():
        link.symlink_to((root / "curated" / "quotes").resolve())
    for name in ("catalog.db", "synth.json"):
        shutil.copy(root / name, target / name)
    codes = json.loads((root / "synth.json").read_text())["symbols"]
    rows = master(len(codes))
    rows["symbol"] = rows["symbol"].map(
        dict(zip(sorted(rows["symbol"].unique()), codes, strict=True))
    )
    for col in ("start_date", "end_date"):
        rows[col] = [d.date() if pd.notna(d) else None for d in pd.to_datetime(rows[col])]
    rows = rows.assign(reason=None, ann_date=None, start_time=None, undated=False)
    rows["known_at_basis"] = "in_force"
    LakeStore(target).write(
        "securities",
        rows,
        run_id="synth-master",
        ingested_at=datetime(2000, 1, 2, tzinfo=timezone.utc),
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lake", default="/tmp/synthlake")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--symbols", type=int, default=5000)
    ap.add_argument("--years", type=int, default=20)
    ap.add_argument(
        "--with-master",
        metavar="DIR",
        help="also time the one-session reads on DIR: the lake's quotes plus a synthetic "
        "security master (built there once)",
    )
    args = ap.parse_args()
    one_session(args.lake, args.reps)
    if args.with_master:
        print(f"with a security master ({args.with_master}):")
        one_session(with_master(args.lake, args.with_master), args.reps)
    history(args.symbols, args.years)


if __name__ == "__main__":
    main()
