"""Time the SQL views changed in the thirteenth session against what a user would write instead.

    .venv/bin/python -m benchmarks.synth --force            # the lake (benchmarks/out/synth-lake)
    .venv/bin/python -m benchmarks.bench_sql_views          # this benchmark

- `quotes_qfq` for one symbol: the factor series and its anchor are now CTEs of the view
  (SHOW TABLES shows the public views only). The baseline is the same point-in-time rule by
  hand in DuckDB: the newest factor version per (symbol, day) known at the cutoff, an ASOF join
  onto the newest quote versions, prices × factor ÷ the latest factor.
- `calendar`: the view now judges each day after the cutoff against the year notices
  (`pitlake.calendar_notices`). It is timed as of the lake's last session and as of a cutoff
  five years earlier, when about 2,000 later days must be judged. The baseline is the
  exchange-calendars session list a user would take (which knows every later holiday).

Answers are compared by row count (and for qfq by the checksum of the prices); a mismatch stops
the run. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

import pyarrow as pa

from benchmarks.bench_reads import _interleaved, _same
from benchmarks.synth import DEFAULT_OUT, read_summary
from pitlake.calendar import FIRST_SESSION
from pitlake.pit import parse_cutoff
from pitlake.read.adjust import PRICE_COLUMNS
from pitlake.read.lake import Lake
from pitlake.units import ADJUSTED_PRICE_DECIMALS

HAND_QFQ = """
WITH q AS (
    SELECT * FROM read_parquet($quotes) WHERE known_at <= $cutoff AND symbol = $s
    QUALIFY row_number() OVER (PARTITION BY symbol, trade_date ORDER BY known_at DESC) = 1
), f AS (
    SELECT symbol, trade_date, adj_factor FROM read_parquet($factors)
    WHERE known_at <= $cutoff AND symbol = $s
    QUALIFY row_number() OVER (PARTITION BY symbol, trade_date ORDER BY known_at DESC) = 1
), a AS (
    SELECT *, arg_max(adj_factor, trade_date) OVER (PARTITION BY symbol) AS anchor FROM f
)
SELECT q.* REPLACE ({prices}), a.adj_factor
FROM q ASOF JOIN a ON q.symbol = a.symbol AND q.trade_date >= a.trade_date
ORDER BY q.trade_date
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    import duckdb
    import exchange_calendars as xc

    root: Path = args.lake
    summary = read_summary(root)
    symbols: list[str] = summary["symbols"]
    symbol = symbols[len(symbols) // 3]
    last = date.fromisoformat(summary["last_session"])
    early = date(last.year - 5, 6, 1)
    curated = root / "curated"
    quotes = [str(f) for f in sorted((curated / "quotes").glob("*=*/*.parquet"))]
    factors = [str(f) for f in sorted((curated / "adj_factors").glob("*=*/*.parquet"))]
    prices = ", ".join(  # rounded as every pitlake surface serves adjusted prices
        f"round(q.{c} * (a.adj_factor / a.anchor), {ADJUSTED_PRICE_DECIMALS}) AS {c}"
        for c in PRICE_COLUMNS
    )
    con = duckdb.connect()
    cutoff = parse_cutoff(last)
    params = {"quotes": quotes, "factors": factors, "cutoff": cutoff, "s": symbol}
    lake = Lake(root, catalog_url=f"sqlite:///{root.resolve() / 'catalog.db'}")
    qfq_sql = f"SELECT * FROM quotes_qfq WHERE symbol = '{symbol}' ORDER BY trade_date"
    cal_sql = "SELECT * FROM calendar"
    cal = xc.get_calendar("XSHG", start=FIRST_SESSION.isoformat())
    rows = []
    try:
        forms = {
            "hand": lambda: con.sql(HAND_QFQ.format(prices=prices), params=params).to_arrow_table(),
            "pitlake": lambda: lake.sql(qfq_sql, as_of=last).to_arrow(),
        }
        t, answers = _interleaved(forms, args.reps)
        _same("qfq", answers["pitlake"], answers["hand"], ["trade_date", *PRICE_COLUMNS])
        rows.append((f"`quotes_qfq`, one symbol ({answers['hand'].num_rows:,} rows)", t))
        forms = {
            "hand": lambda: pa.table({"date": [ts.date() for ts in cal.sessions]}),
            "pitlake": lambda: lake.sql(cal_sql, as_of=last).to_arrow(),
            "pitlake_early": lambda: lake.sql(cal_sql, as_of=early).to_arrow(),
        }
        t, answers = _interleaved(forms, args.reps)
        assert answers["pitlake"].num_rows > answers["pitlake_early"].num_rows
        rows.append((f"`calendar`, every day (as of {last} / as of {early})", t))
    finally:
        lake.close()
    print("| view | by hand (ms) | pitlake (ms) | ratio | pitlake, early cutoff (ms) |")
    print("|---|---:|---:|---:|---:|")
    for what, t in rows:
        hand, mine = t["hand"].median_ms, t["pitlake"].median_ms
        early_ms = f"{t['pitlake_early'].median_ms:.1f}" if "pitlake_early" in t else "—"
        print(f"| {what} | {hand:.1f} | {mine:.1f} | {mine / hand:.2f}× | {early_ms} |")


if __name__ == "__main__":
    main()
