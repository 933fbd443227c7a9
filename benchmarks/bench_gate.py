"""Time the data-quality gate against writing the same rows, in the same run.

    .venv/bin/python benchmarks/bench_gate.py            # 5,300 / 1M / 5M rows
    .venv/bin/python benchmarks/bench_gate.py --quick    # 5,300 / 1M rows only

Synthetic canonical quotes (5,300 symbols across the boards, consecutive XSHG sessions, known_at
from pitlake.pit's rule). For each size: `pitlake.expectations.validate` (derived columns + the GX
suite), a plain pyarrow write (zstd, year partitions sorted by symbol, fsync + rename), and
`LakeStore.write` into a fresh lake. Also, for the session batch, what each expectation costs
inside GX, and at 1M rows the effect of GX's batch fingerprint. Prints a Markdown table for
benchmarks/README.md and saves the raw numbers to benchmarks/out/bench_gate.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
os.environ.setdefault("TQDM_DISABLE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from pitlake.schemas import SCHEMAS

from pitlake import schemas
from pitlake.calendar import BEIJING, sessions_between
from pitlake.pit import apply_known_at

SESSION_ROWS = 5_300
LAST_SESSION = date(2025, 6, 4)
OUT = Path(__file__).resolve().parent / "out"

# (prefix, count, exchange): roughly the A-share market's mix of boards, 5,300 codes
BOARDS = [
    ("600", 1000, "SH"),
    ("601", 400, "SH"),
    ("603", 300, "SH"),
    ("688", 580, "SH"),
    ("000", 900, "SZ"),
    ("002", 600, "SZ"),
    ("300", 1000, "SZ"),
    ("430", 220, "BJ"),
    ("920", 300, "BJ"),
]


def symbols(n: int = SESSION_ROWS) -> np.ndarray:
    codes = [f"{prefix}{i:03d}.{ex}" for prefix, count, ex in BOARDS for i in range(count)]
    return np.array(codes[:n], dtype=object)


def synthetic_quotes(rows: int, seed: int = 0) -> tuple[pd.DataFrame, list[date]]:
    """`rows` canonical quote rows: whole-market sessions ending at LAST_SESSION."""
    syms = symbols()
    n_days = -(-rows // len(syms))
    days = sessions_between(LAST_SESSION - timedelta(days=2 * n_days + 30), LAST_SESSION)
    days = days[-n_days:]
    rng = np.random.default_rng(seed)
    day_col = np.repeat(np.array(days, dtype=object), len(syms))[:rows]
    sym_col = np.tile(syms, n_days)[:rows]
    pre = rng.uniform(3.0, 80.0, rows).round(2)
    close = (pre * (1 + rng.uniform(-0.08, 0.08, rows))).round(2)
    open_ = (pre * (1 + rng.uniform(-0.02, 0.02, rows))).round(2)
    frame = pd.DataFrame(
        {
            "symbol": pd.array(sym_col, dtype="str"),
            "trade_date": day_col,
            "open": open_,
            "high": (np.maximum(open_, close) * 1.01).round(2),
            "low": (np.minimum(open_, close) * 0.99).round(2),
            "close": close,
            "pre_close": pre,
            "volume": rng.uniform(1e4, 1e8, rows).round(0),
            "amount": rng.uniform(1e5, 1e10, rows).round(2),
            "pct_chg": ((close / pre - 1) * 100).round(2),
            "turnover_rate": rng.uniform(0.01, 20.0, rows).round(2),
        }
    )
    fetched = datetime.combine(LAST_SESSION + timedelta(days=1), datetime.min.time(), BEIJING)
    frame = apply_known_at(schemas.get("quotes").known_at, frame, fetched)
    frame["source"] = pd.array(["tushare"] * rows, dtype="str")
    frame["known_at_basis"] = frame["known_at_basis"].astype("str")
    return frame, days


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    """Best wall seconds over `repeat` runs (the machine is shared: the minimum is the least
    disturbed estimate, used for both sides of every ratio), and the last result."""
    times, result = [], None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


def write_pyarrow(frame: pd.DataFrame, root: Path) -> None:
    """The plain write: canonical Arrow schema, year partitions sorted by symbol, zstd."""
    schema = SCHEMAS["quotes"]
    years = schema.partitioning.derive(frame).to_numpy()
    for year in sorted(set(years)):
        part = frame[years == year].sort_values(["symbol", "trade_date"], kind="stable")
        table = pa.Table.from_pandas(
            part[[*schema.columns, "source", "known_at", "known_at_basis"]], preserve_index=False
        )
        path = root / f"year={year}" / "part.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            pq.write_table(table, fh, compression="zstd")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)


def write_lakestore(frame: pd.DataFrame, root: Path) -> None:
    from pitlake.lake.store import LakeStore

    LakeStore(root).write(
        "quotes", frame, run_id="bench", ingested_at=datetime(2030, 1, 1, tzinfo=BEIJING)
    )


def in_fresh_dir(
    write: Callable[[pd.DataFrame, Path], None], frame: pd.DataFrame
) -> Callable[[], None]:
    def run() -> None:
        root = Path(tempfile.mkdtemp(prefix="bench_gate_"))
        try:
            write(frame, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    return run


def context_for(days: list[date]):
    from pitlake.expectations.gate import RunContext

    fetched = datetime.combine(days[-1] + timedelta(days=1), datetime.min.time(), BEIJING)
    if len(days) == 1:
        return RunContext(
            run_id="bench",
            fetched_at=fetched,
            expected_trade_date=days[0],
            previous_row_count=SESSION_ROWS,
        )
    return RunContext(run_id="bench", fetched_at=fetched, window_start=days[0], window_end=days[-1])


def per_expectation(frame: pd.DataFrame, days: list[date]) -> dict[str, float]:
    """ms each expectation adds inside GX on this batch, over an empty suite's cost."""
    from pitlake.expectations.context import run_suite, suite
    from pitlake.expectations.gate import _parameters, _run, prepare, referenced_columns

    ctx = context_for(days)
    exps = list(suite("quotes").expectations)
    prep = prepare("quotes", frame, ctx, exps)
    params = _parameters(SCHEMAS["quotes"], frame, ctx)
    base, _ = timed(lambda: run_suite("quotes", prep.rows, params, only=[]), 15)
    out = {"(empty suite)": base * 1000}
    out["(derived columns)"] = timed(lambda: prepare("quotes", frame, ctx, exps), 15)[0] * 1000
    out["(whole suite, GX only)"] = (
        timed(lambda: _run("quotes", prep, params, exps, "BOOLEAN_ONLY"), 15)[0] * 1000
    )
    for e in exps:
        data = prep.rows if referenced_columns(e) else prep.table
        t, _ = timed(lambda e=e, data=data: run_suite("quotes", data, params, only=[e]), 15)
        out[e.meta["check"]] = (t - base) * 1000
    return out


def collapsed_floor(frame: pd.DataFrame, days: list[date]) -> dict[str, float]:
    """Not shipped, measured for the record: what a GX gate costs on the session batch if the
    row checks were folded into one bitmask column (columns + dtypes + "mask in {0}")."""
    import great_expectations.expectations as gxe
    from pitlake.expectations.context import run_suite, suite
    from pitlake.expectations.gate import _parameters, prepare

    ctx = context_for(days)
    exps = list(suite("quotes").expectations)
    table_level = [e for e in exps if e.meta["check"] in ("columns", "dtypes")]
    params = _parameters(SCHEMAS["quotes"], frame, ctx)

    def gate() -> None:
        prep = prepare("quotes", frame, ctx, exps)  # the same derived columns
        run_suite("quotes", prep.table, params, only=table_level)
        mask = pd.DataFrame({"_dq_mask": np.zeros(len(frame), dtype="int64")})
        run_suite(
            "quotes",
            mask,
            params,
            only=[gxe.ExpectColumnValuesToBeInSet(column="_dq_mask", value_set=[0])],
        )

    return {"collapsed gate (ms)": timed(gate, 15)[0] * 1000}


def fingerprint_effect(frame: pd.DataFrame, days: list[date]) -> dict[str, float]:
    """The gate with GX's md5 batch fingerprint off (ours) and back on (GX's default)."""
    from great_expectations.execution_engine import pandas_execution_engine as pee
    from pitlake.expectations.gate import validate

    ctx = context_for(days)
    off, _ = timed(lambda: validate("quotes", frame, ctx), 2)
    saved = pee.HASH_THRESHOLD
    pee.HASH_THRESHOLD = 1e9  # GX's default: fingerprint frames under 1 GB
    try:
        on, _ = timed(lambda: validate("quotes", frame, ctx), 2)
    finally:
        pee.HASH_THRESHOLD = saved
    return {"fingerprint off (s)": off, "fingerprint on (s)": on}


def nightly_append(repeat: int = 3) -> dict[str, float]:
    """The write a nightly run really does: one session's 5,300 rows merged into the year
    partition that already holds every earlier session of the year (read, merge, rewrite,
    fsync, rename), against the gate on the same batch."""
    from pitlake.lake.store import LakeStore

    frame, days = synthetic_quotes(SESSION_ROWS * 120)
    year = LAST_SESSION.year
    in_year = [d for d in days if d.year == year]
    frame = frame[[d in set(in_year) for d in frame["trade_date"]]].reset_index(drop=True)
    today = frame[frame["trade_date"] == LAST_SESSION].reset_index(drop=True)
    history = frame[frame["trade_date"] != LAST_SESSION].reset_index(drop=True)
    root = Path(tempfile.mkdtemp(prefix="bench_gate_append_"))
    try:
        store = LakeStore(root)
        store.write(
            "quotes", history, run_id="history", ingested_at=datetime(2030, 1, 1, tzinfo=BEIJING)
        )
        part = store.partition_path("quotes", str(year))
        saved = part.read_bytes()

        def append() -> None:
            part.write_bytes(saved)  # the partition as it was before tonight
            store.write(
                "quotes", today, run_id="tonight", ingested_at=datetime(2030, 1, 2, tzinfo=BEIJING)
            )

        write_s, _ = timed(append, repeat)
        from pitlake.expectations.gate import validate

        ctx = context_for([LAST_SESSION])
        gate_s, verdict = timed(lambda: validate("quotes", today, ctx), 9)
        assert verdict.outcome.value == "pass", verdict.message
        return {
            "partition_rows_before": len(history),
            "sessions_in_partition": len(in_year),
            "batch_rows": len(today),
            "append_write_s": write_s,
            "gate_s": gate_s,
            "ratio": gate_s / write_s,
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 5M-row chunk")
    args = parser.parse_args()

    t = time.perf_counter()
    from pitlake.expectations.context import state
    from pitlake.expectations.gate import validate

    state()
    setup = time.perf_counter() - t
    sizes = [SESSION_ROWS, 1_000_000] + ([] if args.quick else [5_000_000])
    rows_out = []
    extra: dict[str, object] = {"gx_import_and_context_s": setup}
    for rows in sizes:
        frame, days = synthetic_quotes(rows)
        ctx = context_for(days)
        small = rows == SESSION_ROWS
        repeat = 9 if small else (3 if rows <= 1_000_000 else 2)
        validate("quotes", frame.head(100), ctx)  # warm the per-code limit table
        gate_s, verdict = timed(lambda frame=frame, ctx=ctx: validate("quotes", frame, ctx), repeat)
        assert verdict.outcome.value == "pass", verdict.message
        plain_s, _ = timed(in_fresh_dir(write_pyarrow, frame), repeat)
        store_s, _ = timed(in_fresh_dir(write_lakestore, frame), repeat if small else 2)
        rows_out.append(
            {
                "rows": rows,
                "sessions": len(days),
                "gate_s": gate_s,
                "pyarrow_write_s": plain_s,
                "lakestore_write_s": store_s,
                "ratio_vs_pyarrow": gate_s / plain_s,
                "ratio_vs_lakestore": gate_s / store_s,
                "expectations": verdict.evaluated,
                "peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
            }
        )
        print(
            f"{rows:>9,} rows: gate {gate_s:.3f}s  pyarrow {plain_s:.3f}s  "
            f"LakeStore {store_s:.3f}s",
            flush=True,
        )
        if small:
            extra["per_expectation_ms"] = per_expectation(frame, days)
            extra["collapsed_session"] = collapsed_floor(frame, days)
        if rows == 1_000_000:
            extra["fingerprint_1M"] = fingerprint_effect(frame, days)
        del frame
        gc.collect()

    print("\n| rows | sessions | gate | pyarrow write | ratio | LakeStore.write | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows_out:
        print(
            f"| {r['rows']:,} | {r['sessions']} | {r['gate_s'] * 1000:,.0f} ms | "
            f"{r['pyarrow_write_s'] * 1000:,.0f} ms | {r['ratio_vs_pyarrow']:.2f} | "
            f"{r['lakestore_write_s'] * 1000:,.0f} ms | {r['ratio_vs_lakestore']:.2f} |"
        )
    print(f"\nGX import + context + suites, once per process: {setup:.1f} s")
    for name, ms in extra.get("per_expectation_ms", {}).items():  # type: ignore[union-attr]
        print(f"  {name:32s} {ms:7.2f} ms")
    print(extra.get("collapsed_session"))
    extra["nightly_append"] = nightly_append()
    print("nightly append into the year partition:", extra["nightly_append"])
    print(extra.get("fingerprint_1M"))
    OUT.mkdir(exist_ok=True)
    (OUT / "bench_gate.json").write_text(json.dumps({"sizes": rows_out, **extra}, indent=2))


if __name__ == "__main__":
    main()
