"""Lake.panel against a hand-written DuckDB ASOF JOIN over the same Parquet files (issue 29):
two income line items (revenue, net_profit: the latest period's cumulative value as known at
each session's 15:00 cutoff), one row per session × symbol, for 50 / 500 / 5,000 symbols over
the synthetic lake's sessions (`python -m benchmarks.synth --force` first). Each measurement
runs in its own process so its peak RSS is its own; times are warm (best of the runs after a
first one).

    python -m benchmarks.bench_panel [--lake benchmarks/out/synth-lake] [--sizes 50,500,5000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ITEMS = ["revenue", "net_profit"]
DEFAULT_LAKE = Path(__file__).parent / "out" / "synth-lake"

HAND = """
WITH r AS (SELECT s.session, s.cutoff, u.symbol FROM sessions s CROSS JOIN asked u),
v AS (SELECT symbol, report_period, known_at, revenue, net_profit
      FROM read_parquet({files}, union_by_name = true)
      WHERE statement = 'income' AND report_type = '1' AND symbol IN (SELECT symbol FROM asked)
        AND known_at <= $cap),
e AS (SELECT symbol, known_at AS t, max(report_period) OVER (PARTITION BY symbol
        ORDER BY known_at ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS p FROM v),
st AS (SELECT e.symbol, e.t, v.revenue, v.net_profit FROM e
       ASOF LEFT JOIN v ON v.symbol = e.symbol AND v.report_period = e.p AND v.known_at <= e.t)
SELECT r.session AS trade_date, r.symbol, st.revenue, st.net_profit FROM r
ASOF LEFT JOIN st ON st.symbol = r.symbol AND st.t <= r.cutoff
ORDER BY r.session, r.symbol
"""


def _one(lake_dir: Path, method: str, n: int, runs: int) -> dict:
    import duckdb
    import pyarrow as pa

    from pitlake.pit import BEIJING
    from pitlake.read.lake import Lake

    lake = Lake(lake_dir)
    from benchmarks.synth import DEFAULT_END

    first = DEFAULT_END.replace(year=DEFAULT_END.year - 4, month=1, day=1)
    sessions = lake.trading_calendar.sessions_between(first, DEFAULT_END)  # the synth's 5 years
    end_day = sessions[-1]
    fin = [str(f) for f in lake.store.files("financials")]
    symbols = [  # the synthetic lake has no security master: the symbols with statements
        r[0]
        for r in duckdb.sql(
            f"SELECT DISTINCT symbol FROM read_parquet({fin}) ORDER BY symbol LIMIT {n}"
        ).fetchall()
    ]
    times = []
    rows = 0
    db = duckdb.connect()  # the hand query keeps its database as the Lake keeps its own
    for _ in range(runs):
        t0 = time.perf_counter()
        if method == "panel":
            r = lake.panel(ITEMS, sessions[0], end_day, universe=symbols)
            table = r.to_arrow()
        else:
            con = db.cursor()
            cut = [
                datetime.combine(d, datetime.min.time().replace(hour=15), BEIJING) for d in sessions
            ]
            con.register(
                "sessions",
                pa.table(
                    {
                        "session": pa.array(sessions, pa.date32()),
                        "cutoff": pa.array(
                            [c.astimezone(timezone.utc) for c in cut], pa.timestamp("us", tz="UTC")
                        ),
                    }
                ),
            )
            con.register("asked", pa.table({"symbol": symbols}))
            files = [str(f) for f in lake.store.files("financials")]
            table = con.execute(HAND.format(files=files), {"cap": cut[-1]}).to_arrow_table()
            con.close()
        times.append(time.perf_counter() - t0)
        rows = table.num_rows
    warm = min(times[1:]) if len(times) > 1 else times[0]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB → MiB on Linux
    return {
        "method": method,
        "symbols": n,
        "rows": rows,
        "cold_s": times[0],
        "warm_s": warm,
        "peak_rss_mib": rss,
        "sessions": len(sessions),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lake", type=Path, default=DEFAULT_LAKE)
    ap.add_argument("--sizes", default="50,500,5000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--one", nargs=2, metavar=("METHOD", "N"))
    a = ap.parse_args()
    if a.one:
        print(json.dumps(_one(a.lake, a.one[0], int(a.one[1]), a.runs)))
        return
    print(
        "| symbols | rows | hand warm s | panel warm s | panel/hand | hand RSS MiB | panel RSS MiB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (int(s) for s in a.sizes.split(",")):
        out = {}
        for method in ("hand", "panel"):
            cmd = [
                sys.executable,
                "-m",
                "benchmarks.bench_panel",
                "--lake",
                str(a.lake),
                "--runs",
                str(a.runs),
                "--one",
                method,
                str(n),
            ]
            out[method] = json.loads(subprocess.check_output(cmd).decode().strip().splitlines()[-1])
        h, p = out["hand"], out["panel"]
        print(
            f"| {n:,} | {p['rows']:,} | {h['warm_s']:.2f} | {p['warm_s']:.2f} | "
            f"{p['warm_s'] / h['warm_s']:.2f} | {h['peak_rss_mib']:.0f} | {p['peak_rss_mib']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
