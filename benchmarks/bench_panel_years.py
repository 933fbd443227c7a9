"""Lake.panel's memory over decades (issue 29: "twenty years of the whole market must run in
bounded memory"): one panel of `--fields` for `--symbols` symbols over the last `--years`
calendar years of a synthetic lake, in its own process, reporting wall time, rows, the
Arrow answer's size and the process's peak RSS. Build the lake first:

    python -m benchmarks.synth --out benchmarks/out/synth-lake-20y --symbols 5000 --years 20
    python -m benchmarks.bench_panel_years --lake benchmarks/out/synth-lake-20y --years 20

The synthetic lake has no security master, so the universe is the given symbols (those with
statements), every session."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_FIELDS = "close,ret_1d,revenue,net_profit_ttm"
DEFAULT_LAKE = Path(__file__).parent / "out" / "synth-lake-20y"


def _one(lake_dir: Path, years: int, n: int, fields: list[str]) -> dict:
    import duckdb

    from benchmarks.synth import DEFAULT_END
    from pitlake.read.lake import Lake

    lake = Lake(lake_dir)
    start = DEFAULT_END.replace(year=DEFAULT_END.year - years + 1, month=1, day=1)
    fin = [str(f) for f in lake.store.files("financials")]
    symbols = [
        r[0]
        for r in duckdb.sql(
            f"SELECT DISTINCT symbol FROM read_parquet({fin}) ORDER BY symbol LIMIT {n}"
        ).fetchall()
    ]
    t0 = time.perf_counter()
    r = lake.panel(fields, start, DEFAULT_END, universe=symbols)
    table = r.arrow_table()
    wall = time.perf_counter() - t0
    return {
        "years": years,
        "symbols": len(symbols),
        "sessions": r.meta["sessions"],
        "rows": table.num_rows,
        "status": str(r.status),
        "wall_s": round(wall, 1),
        "arrow_mib": round(table.nbytes / 2**20),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, default=DEFAULT_LAKE)
    ap.add_argument("--years", default="20", help="comma-separated, e.g. 5,20")
    ap.add_argument("--symbols", type=int, default=5000)
    ap.add_argument("--fields", default=DEFAULT_FIELDS)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    fields = args.fields.split(",")
    if args.child:
        print(json.dumps(_one(args.lake, int(args.years), args.symbols, fields)))
        return 0
    for years in args.years.split(","):
        cmd = [sys.executable, "-m", "benchmarks.bench_panel_years", "--child"]
        cmd += ["--lake", str(args.lake), "--years", years, "--symbols", str(args.symbols)]
        cmd += ["--fields", args.fields]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        print(out.strip().splitlines()[-1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
