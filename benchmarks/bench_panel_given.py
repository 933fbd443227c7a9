"""More than 500 given symbols (decision 57 (1)): `Lake.panel` over 20 years for 5,000 given
symbols, with each given symbol judged on the sessions that have rows (`symbol_gaps`) and
without (the whole market only, as before), the sides alternating, each run its own process,
peak RSS from getrusage. Two cases: `close, pe` with valuation never fetched, and `close` for
2,500 of the lake's symbols plus 2,500 codes it never held (12M missing pairs, benign on the
whole-market fetches). Build the lake first:

    python -m benchmarks.synth --out /tmp/panel-truth-synth20 --symbols 5000 --years 20
    python -m benchmarks.bench_panel_given --lake /tmp/panel-truth-synth20 --runs 2
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

CASES = {"never-fetched": ["close", "pe"], "half-never-held": ["close"]}


def _symbols(lake_dir: str, case: str) -> list[str]:
    held = json.loads((Path(lake_dir) / "synth.json").read_text())["symbols"]
    if case == "never-fetched":
        return held[:5000]
    taken = set(held)
    ranges = (range(600000, 602000), range(603000, 604000), range(605000, 606000))
    pool = [f"{i}.SH" for r in ranges for i in r] + [f"{i:06d}.SZ" for i in range(1, 3000)]
    return held[:2500] + [c for c in pool if c not in taken][:2500]


def _one(lake_dir: str, case: str, side: str) -> dict:
    from benchmarks.synth import DEFAULT_END
    from pitlake.read.lake import Lake
    from pitlake.read.panel import symbol_gaps

    if side == "whole-market-only":
        symbol_gaps.given_gaps = lambda *a, **k: []  # the judgement before decision 57
    lake = Lake(lake_dir)
    start = DEFAULT_END.replace(year=DEFAULT_END.year - 19, month=1, day=1)
    t0 = time.perf_counter()
    r = lake.panel(CASES[case], start, DEFAULT_END, universe=_symbols(lake_dir, case))
    rows = r.arrow_table().num_rows
    return {
        "case": case,
        "side": side,
        "rows": rows,
        "status": str(r.status),
        "wall_s": round(time.perf_counter() - t0, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", required=True)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--one", nargs=2, metavar=("CASE", "SIDE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(_one(args.lake, *args.one)))
        return 0
    for case in args.cases.split(","):
        for _ in range(args.runs):
            for side in ("per-symbol", "whole-market-only"):
                out = subprocess.run(
                    [
                        *(sys.executable, "-m", "benchmarks.bench_panel_given"),
                        *("--lake", args.lake, "--one", case, side),
                    ],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                got = json.loads(out.stdout.strip().splitlines()[-1])
                load = open("/proc/loadavg").read().split()[0]
                print(json.dumps({**got, "load": load}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
