"""Time the universe view and the gate's window of states on a synthetic security master.

    .venv/bin/python -m benchmarks.bench_universe [--symbols 5000] [--reps 10]

The master is drawn in memory (no lake needed): per code one listing interval, three name
intervals (every tenth code *ST in the second), one ST interval for every tenth code and 20
one-day suspensions, all known long before the day asked — 120,500 rows for 5,000 codes, the
size of the real master. Timed, in the same run:

1. `universe_at(rows, day)`: the universe of one day from the rows (what `Lake.universe` does
   after its scan), against a hand-written DuckDB query over the same in-memory rows (listing
   in force, name in force, ST and suspension flags).
2. The gate's states for a backfill window (`gate_states`: each code's ST days while listed and
   its first trading day in the window) against the view day by day that it replaced, for a
   quarter (56 sessions), and `gate_states` alone for 20 years.
3. With `--lake DIR` (a lake with a stored master, e.g. /tmp/synthlake-m from `bench_limits
   --with-master`), first `Lake.universe` itself, scan included, cold and warm, against a
   hand-written DuckDB query over the master's files.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
from pitlake.schemas.securities import gate_states, universe_at

from pitlake.calendar import sessions_between

KNOWN = datetime(2000, 1, 1, tzinfo=timezone.utc)


def master(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows: list[dict] = []

    def add(sym: str, attribute: str, start: date, end: date | None, name: str | None = None):
        listing = attribute == "listing"
        rows.append(
            {
                "symbol": sym,
                "attribute": attribute,
                "start_date": start,
                "end_date": end,
                "name": name,
                "board": "main" if listing else None,
                "exchange": "SH" if listing else None,
                "source": "tushare",
                "known_at": KNOWN,
            }
        )

    for i in range(n):
        sym = f"{600000 + i:06d}.SH"
        listed = date(2000, 1, 4) + timedelta(days=int(rng.integers(0, 8000)))
        add(sym, "listing", listed, None)
        for k in range(3):
            end = listed + timedelta(days=700 * k + 699) if k < 2 else None
            star = "*ST" if k == 1 and i % 10 == 0 else ""
            add(sym, "name", listed + timedelta(days=700 * k), end, f"{star}N{i}")
        if i % 10 == 0:
            add(sym, "st", listed + timedelta(days=700), listed + timedelta(days=1399))
        for _ in range(20):
            day = listed + timedelta(days=int(rng.integers(0, 8000)))
            add(sym, "suspension", day, day)
    # as the state reader hands them on: an Arrow round trip, dates as datetime64
    return pa.Table.from_pandas(pd.DataFrame(rows)).to_pandas(date_as_object=False)


HAND = """
WITH live AS (
    SELECT * FROM rows
    WHERE start_date <= $day AND (end_date IS NULL OR end_date >= $day)
)
SELECT l.symbol, n.name, l.board, l.exchange, l.start_date AS list_date,
       s.symbol IS NOT NULL AS is_st, h.symbol IS NOT NULL AS is_suspended
FROM (SELECT * FROM live WHERE attribute = 'listing'
      QUALIFY row_number() OVER (PARTITION BY symbol ORDER BY start_date DESC) = 1) l
LEFT JOIN (SELECT symbol, arg_max(name, start_date) AS name FROM live
           WHERE attribute = 'name' GROUP BY symbol) n USING (symbol)
LEFT JOIN (SELECT DISTINCT symbol FROM live WHERE attribute = 'st') s USING (symbol)
LEFT JOIN (SELECT DISTINCT symbol FROM live WHERE attribute = 'suspension') h USING (symbol)
ORDER BY l.symbol
"""

HAND_FILES = (
    "WITH rows AS (SELECT * FROM read_parquet($files) WHERE known_at <= $cutoff AND start_date <= $day QUALIFY row_number() OVER (PARTITION BY symbol, attribute, start_date ORDER BY known_at DESC, ingested_at DESC) = 1), "
    + HAND.strip()[len("WITH ") :]
)


def lake_universe(root: Path, reps: int) -> None:
    """`Lake.universe` on a stored master (its scan included): the first call in the process
    (cold: the master's files are scanned and kept) and later ones (warm), beside the
    hand-written DuckDB query over the same files (newest version per key at the cutoff,
    then the universe)."""
    from pitlake.read.lake import Lake

    summary = json.loads((root / "synth.json").read_text())
    day = date.fromisoformat(summary["last_session"])
    lake = Lake(root, catalog_url=f"sqlite:///{root.resolve() / 'catalog.db'}")
    files = [str(f) for f in lake.store.files("securities")]
    if not files:
        raise SystemExit(f"{root}: no securities stored (bench_limits --with-master builds one)")
    cutoff = lake.ask(day).cutoff
    con = duckdb.connect()
    t = time.perf_counter()
    ours = lake.universe(day)
    cold = (time.perf_counter() - t) * 1000
    hand = con.execute(HAND_FILES, {"files": files, "cutoff": cutoff, "day": day}).df()
    assert ours.to_arrow().column("symbol").to_pylist() == list(hand["symbol"])
    warm = _median_ms(lambda: lake.universe(day), reps)
    duck = _median_ms(
        lambda: con.execute(HAND_FILES, {"files": files, "cutoff": cutoff, "day": day}).df(), reps
    )
    print(
        f"Lake.universe({day}) on {root} ({ours.to_arrow().num_rows:,} codes, {len(files)} "
        f"files): cold {cold:.0f} ms, warm {warm:.0f} ms; hand-written DuckDB over the files "
        f"{duck:.0f} ms (warm {warm / duck:.2f}x)"
    )
    lake.close()


def _median_ms(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--symbols", type=int, default=5000)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument(
        "--lake",
        type=Path,
        help="also time Lake.universe on this lake's stored master (bench_limits --with-master)",
    )
    args = ap.parse_args()
    if args.lake:
        lake_universe(args.lake, args.reps)
    rows = master(args.symbols)
    print(f"master: {len(rows):,} rows for {args.symbols:,} codes")
    day = date(2024, 6, 3)
    con = duckdb.connect()
    con.register("rows", rows)
    ours = universe_at(rows, day)
    hand = con.execute(HAND, {"day": day}).df()
    assert list(ours["symbol"]) == list(hand["symbol"])
    assert list(ours["is_st"]) == list(hand["is_st"])
    assert list(ours["is_suspended"]) == list(hand["is_suspended"])
    view = _median_ms(lambda: universe_at(rows, day), args.reps)
    duck = _median_ms(lambda: con.execute(HAND, {"day": day}).df(), args.reps)
    print(
        f"universe of one day ({len(ours):,} codes): universe_at {view:.0f} ms, "
        f"hand-written DuckDB {duck:.0f} ms ({view / duck:.2f}x)"
    )
    quarter = sessions_between(date(2003, 1, 1), date(2003, 3, 31))

    def day_by_day() -> None:
        for d in quarter:
            universe_at(rows, d)

    slow = _median_ms(day_by_day, 1)
    fast = _median_ms(lambda: gate_states(rows, quarter), args.reps)
    print(
        f"gate states, {len(quarter)} sessions: the view day by day {slow / 1000:.1f} s, "
        f"gate_states {fast:.0f} ms"
    )
    years = sessions_between(date(2005, 1, 1), date(2024, 12, 31))
    whole = _median_ms(lambda: gate_states(rows, years), 3)
    print(f"gate states, {len(years):,} sessions (20 years): gate_states {whole:.0f} ms")


if __name__ == "__main__":
    main()
