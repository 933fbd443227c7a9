"""The panel's derived-in-Python fields (is_st, is_suspended, days_listed; limit_state) over
many sessions: the one pass over the sessions (`session_facts.states` / `.limits`) beside the
single-instant derivation run once per session (`state.rows_by` + the state view, as
`Lake.universe`; `market.session_pools`, as `Lake.limits`: the panel's former path and the
loop a user would write), each run in its own process, the two sides alternating, peak RSS
from getrusage. Needs a lake with a security master, e.g. the 5,000-symbol synthetic lake
with one (`benchmarks.bench_limits.with_master`):

    python -m benchmarks.bench_panel_facts --lake /tmp/limit-rules-master \\
        --start 2025-01-01 --end 2025-12-31 --runs 3

`--fields panel` times the whole `Lake.panel(["is_st", "days_listed", "limit_state"],
universe="all")`, its former path being those functions once per session.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time


def _one(lake_dir: str, field: str, side: str, start: str, end: str) -> dict:
    import pandas as pd
    from pitlake.schemas import securities

    from pitlake.read.lake import Lake
    from pitlake.read.panel import run, session_facts
    from pitlake.read.readers import state

    lake = Lake(lake_dir)
    q = run.question(lake, ["is_st"], start, end, "all", "15:00", None, False)

    def cutoff_of(d):
        return run.cutoff_of(q, d)

    if field == "panel" and side == "per-session":  # the panel's former path
        session_facts.states, session_facts.limits = _per_session_states, _per_session_limits
    t0 = time.perf_counter()
    if field == "panel":
        fields = ["is_st", "days_listed", "limit_state"]
        rows = lake.panel(fields, start, end, universe="all").arrow_table().num_rows
    elif side == "one-pass":
        table = (session_facts.states if field == "is_st" else session_facts.limits)(
            lake, q.sessions, cutoff_of
        )
        rows = table.num_rows
    elif field == "is_st":  # the per-session derivation, as Lake.universe answers
        spec = securities.SCHEMA
        assert spec.state is not None
        frames = []
        for d in q.sessions:
            cutoff = cutoff_of(d)
            found = state.rows_by(lake.store, lake.reader, spec, cutoff.date(), cutoff)
            frames.append(spec.state.view(found, cutoff.date(), None).assign(session=d))
        rows = len(pd.concat(frames))
    else:
        rows = sum(len(f) for f in session_facts.session_limits(lake, q.sessions, cutoff_of))
    return {
        "field": field,
        "side": side,
        "sessions": len(q.sessions),
        "rows": rows,
        "wall_s": round(time.perf_counter() - t0, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def _per_session_states(lake, days, cutoff_of):
    """`session_facts.states` as it was: the universe's derivation once per session."""
    import pandas as pd
    import pyarrow as pa
    from pitlake.schemas import securities

    from pitlake.read.panel import session_facts
    from pitlake.read.readers import state

    spec = securities.SCHEMA
    assert spec.state is not None
    frames = []
    for d in days:
        cutoff = cutoff_of(d)
        found = state.rows_by(lake.store, lake.reader, spec, cutoff.date(), cutoff)
        frames.append(spec.state.view(found, cutoff.date(), None).assign(session=d))
    out = pd.concat(frames, ignore_index=True)
    out["days_listed"] = session_facts._sessions_since(lake, out["list_date"], out["session"])
    schema = session_facts._STATE_SCHEMA
    return pa.Table.from_pandas(out[schema.names], schema=schema, preserve_index=False)


def _per_session_limits(lake, days, cutoff_of):
    """`session_facts.limits` as it was: the pools' derivation once per session."""
    import pyarrow as pa

    from pitlake.read.panel import session_facts

    found = session_facts.session_limits(lake, days, cutoff_of)
    return pa.concat_tables([session_facts._limit_cells(f) for f in found])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", required=True)
    ap.add_argument("--start", default="2025-01-01")
    ap.add_argument("--end", default="2025-12-31")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--fields", default="is_st,limit_state")
    ap.add_argument("--sides", default="one-pass,per-session")
    ap.add_argument("--one", nargs=2, metavar=("FIELD", "SIDE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(_one(args.lake, args.one[0], args.one[1], args.start, args.end)))
        return 0
    results: dict[tuple[str, str], list[dict]] = {}
    for field in args.fields.split(","):
        for _ in range(args.runs):
            for side in args.sides.split(","):
                out = subprocess.run(
                    [
                        *(sys.executable, "-m", "benchmarks.bench_panel_facts"),
                        *("--lake", args.lake, "--start", args.start, "--end", args.end),
                        *("--one", field, side),
                    ],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                got = json.loads(out.stdout.strip().splitlines()[-1])
                load = open("/proc/loadavg").read().split()[0]
                print(json.dumps({**got, "load": load}), flush=True)
                results.setdefault((field, side), []).append(got)
    for (field, side), runs in results.items():
        print(
            f"{field:12} {side:12} sessions={runs[0]['sessions']} rows={runs[0]['rows']} "
            f"median {statistics.median(r['wall_s'] for r in runs):.2f} s, "
            f"peak RSS {max(r['peak_rss_mib'] for r in runs)} MiB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
