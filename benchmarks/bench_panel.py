"""Lake.panel against a hand-written DuckDB query over the same Parquet files (issue 29), one
row per session × symbol, for 50 / 500 / 5,000 symbols over the synthetic lake's last five
years (`python -m benchmarks.synth --force` first):

- `--fields items` (default): two income line items (revenue, net_profit: the latest
  period's cumulative value as known at each session's 15:00 cutoff) against an ASOF JOIN;
- `--fields ret_1d`: the day's return, close × factor over the previous session's, each as
  known at the row's cutoff, against four ASOF JOINs (the bar and the factor of the session
  and of the previous one, each the version known at the cutoff; the synthetic lake has a
  factor on every session, so the hand query matches them by date).

Each measurement runs in its own process (its peak RSS its own), the two sides alternating
process by process (`--rounds` each); a process times `--runs` warm calls after a first one.
Reported: the median warm time over all of a side's calls, and the load average.
`--check` compares the two answers cell for cell instead.

    python -m benchmarks.bench_panel [--lake benchmarks/out/synth-lake] [--sizes 50,500,5000]
        [--fields items|ret_1d] [--rounds 3] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
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

HAND_RET = """
WITH r AS (SELECT s.session, s.cutoff, s.prev, u.symbol FROM sessions s CROSS JOIN asked u),
q AS (SELECT symbol, trade_date, known_at, close FROM read_parquet({quotes})
      WHERE symbol IN (SELECT symbol FROM asked) AND known_at <= $cap AND trade_date >= $plo),
f AS (SELECT symbol, trade_date, known_at, adj_factor FROM read_parquet({factors})
      WHERE symbol IN (SELECT symbol FROM asked) AND known_at <= $cap AND trade_date >= $plo)
SELECT r.session AS trade_date, r.symbol,
  (q0.close * f0.adj_factor) / (q1.close * f1.adj_factor) - 1 AS ret_1d
FROM r
ASOF LEFT JOIN q q0 ON q0.symbol = r.symbol AND q0.trade_date = r.session
  AND q0.known_at <= r.cutoff
ASOF LEFT JOIN q q1 ON q1.symbol = r.symbol AND q1.trade_date = r.prev
  AND q1.known_at <= r.cutoff
ASOF LEFT JOIN f f0 ON f0.symbol = r.symbol AND f0.trade_date = r.session
  AND f0.known_at <= r.cutoff
ASOF LEFT JOIN f f1 ON f1.symbol = r.symbol AND f1.trade_date = r.prev
  AND f1.known_at <= r.cutoff
ORDER BY r.session, r.symbol
"""
FIELDS = {"items": ITEMS, "ret_1d": ["ret_1d"]}


def _one(lake_dir: Path, method: str, n: int, runs: int, fields: str) -> dict:
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
    before = lake.trading_calendar.previous_session(sessions[0])
    prev = [before, *sessions[:-1]]
    db = duckdb.connect()  # the hand query keeps its database as the Lake keeps its own

    def panel() -> pa.Table:
        return lake.panel(FIELDS[fields], sessions[0], end_day, universe=symbols).to_arrow()

    def hand() -> pa.Table:
        con = db.cursor()
        cut = [datetime.combine(d, datetime.min.time().replace(hour=15), BEIJING) for d in sessions]
        con.register(
            "sessions",
            pa.table(
                {
                    "session": pa.array(sessions, pa.date32()),
                    "cutoff": pa.array(
                        [c.astimezone(timezone.utc) for c in cut], pa.timestamp("us", tz="UTC")
                    ),
                    "prev": pa.array(prev, pa.date32()),
                }
            ),
        )
        con.register("asked", pa.table({"symbol": symbols}))
        if fields == "items":
            files = [str(f) for f in lake.store.files("financials")]
            text, params = HAND.format(files=files), {"cap": cut[-1]}
        else:
            text = HAND_RET.format(
                quotes=[str(f) for f in lake.store.files("quotes")],
                factors=[str(f) for f in lake.store.files("adj_factors")],
            )
            params = {"cap": cut[-1], "plo": before}
        table = con.sql(text, params=params).to_arrow_table()
        con.close()
        return table

    if method == "check":
        mine, theirs = panel(), hand()
        return {"symbols": n, "rows": mine.num_rows, "equal": mine.equals(theirs)}
    call = panel if method == "panel" else hand
    times = []
    rows = 0
    for _ in range(runs + 1):
        t0 = time.perf_counter()
        rows = call().num_rows
        times.append(time.perf_counter() - t0)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB → MiB on Linux
    return {
        "method": method,
        "symbols": n,
        "rows": rows,
        "cold_s": times[0],
        "warm_s": times[1:],
        "peak_rss_mib": rss,
        "sessions": len(sessions),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lake", type=Path, default=DEFAULT_LAKE)
    ap.add_argument("--sizes", default="50,500,5000")
    ap.add_argument("--fields", choices=sorted(FIELDS), default="items")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--one", nargs=2, metavar=("METHOD", "N"))
    a = ap.parse_args()
    if a.one:
        print(json.dumps(_one(a.lake, a.one[0], int(a.one[1]), a.runs, a.fields)))
        return

    def run(method: str, n: int) -> dict:
        cmd = [sys.executable, "-m", "benchmarks.bench_panel", "--lake", str(a.lake)]
        cmd += ["--runs", str(a.runs), "--fields", a.fields, "--one", method, str(n)]
        return json.loads(subprocess.check_output(cmd).decode().strip().splitlines()[-1])

    sizes = [int(s) for s in a.sizes.split(",")]
    if a.check:
        for n in sizes:
            print(run("check", n), flush=True)
        return
    print(f"fields: {a.fields}; load average at start {os.getloadavg()}")
    print(
        "| symbols | rows | hand median s | panel median s | panel/hand | hand RSS MiB "
        "| panel RSS MiB | load |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        got: dict[str, list[dict]] = {"hand": [], "panel": []}
        for _ in range(a.rounds):  # alternating: hand, panel, hand, panel …
            for method in ("hand", "panel"):
                got[method].append(run(method, n))
        h, p = (statistics.median(t for r in got[m] for t in r["warm_s"]) for m in got)
        rss = {m: max(r["peak_rss_mib"] for r in got[m]) for m in got}
        print(
            f"| {n:,} | {got['panel'][0]['rows']:,} | {h:.3f} | {p:.3f} | {p / h:.2f} | "
            f"{rss['hand']:.0f} | {rss['panel']:.0f} | {os.getloadavg()[0]:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
