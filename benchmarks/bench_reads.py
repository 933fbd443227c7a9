"""Time as-of reads through `pitlake.Lake` against a plain pandas read of the same files.

    .venv/bin/python -m benchmarks.synth --force        # the lake (benchmarks/out/synth-lake)
    .venv/bin/python -m benchmarks.bench_reads          # this benchmark

Each read runs once to warm up, then `--reps` times; we report the median and p90 wall time.
The pandas baseline reads the same Parquet files with `pandas.read_parquet(<dataset dir>,
filters=...)` (pyarrow prunes the year partitions and row groups by the filters) and applies the
same point-in-time rule in pandas: rows with known_at ≤ cutoff, then the latest version per key
(sort + drop_duplicates). Both answers are compared by row count and an order-independent
checksum of every served column; a mismatch stops the benchmark (a benchmark that returns a
different answer is worthless). Prints a Markdown table and saves benchmarks/out/bench_reads.json.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import io
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pitlake.schemas import get as get_schema

from benchmarks.synth import DEFAULT_OUT, lake_size, read_summary
from pitlake.calendar import sessions_between
from pitlake.envelope import Result
from pitlake.pit import parse_cutoff
from pitlake.read.adjust import PRICE_COLUMNS
from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus

OUT = Path(__file__).resolve().parent / "out"
DATE_COLUMNS = ("trade_date", "report_period", "ann_date", "revision_date")
SLOW_S, SLOW_REPS = 5.0, 5  # a read slower than this runs at most SLOW_REPS times
FIN_KEY = ["symbol", "statement", "report_period", "report_type"]


# ---------------------------------------------------------------- answers and fingerprints


def _fingerprint(frame: pd.DataFrame, columns: Sequence[str]) -> tuple[int, str]:
    """(rows, checksum) of `columns`, independent of row order and of how each side types its
    values: dates as ISO text, instants as UTC microseconds, floats rounded to 6 places."""
    norm = pd.DataFrame(index=range(len(frame)))
    for c in columns:
        s = frame[c].reset_index(drop=True)
        if c in DATE_COLUMNS:
            norm[c] = s.map(lambda v: None if v is None or v != v else str(v)).astype(object)
        elif c == "known_at":
            norm[c] = pd.to_datetime(s, utc=True, format="ISO8601").astype("int64")
        elif c in ("undated_revision",):
            norm[c] = s.astype(bool)
        elif pd.api.types.is_float_dtype(s.dtype) or c in _FLOAT_COLUMNS:
            norm[c] = np.round(pd.to_numeric(s, errors="raise").astype("float64"), 6)
        else:
            norm[c] = s.astype(object).map(lambda v: None if v is None or v != v else str(v))
    hashed = pd.util.hash_pandas_object(norm, index=False).to_numpy()
    return len(frame), f"{int(hashed.sum(dtype=np.uint64)):016x}"


_FLOAT_COLUMNS = {
    f.name
    for name in ("quotes", "financials", "adj_factors")
    for f in get_schema(name).fields
    if pa.types.is_floating(f.type)
} | {"adj_factor"}


def _lake_frame(result: Result) -> pd.DataFrame:
    if result.status is not ResultStatus.OK:
        raise RuntimeError(f"pitlake answered {result.status}: {result.message}")
    return pd.DataFrame(result.data)


def _latest(frame: pd.DataFrame, key: list[str], cutoff: pd.Timestamp) -> pd.DataFrame:
    """The point-in-time rule in pandas: visible rows, newest version per key."""
    frame = frame[frame["known_at"] <= cutoff]
    return frame.sort_values([*key, "known_at"], kind="stable").drop_duplicates(key, keep="last")


def _read(dataset_dir: Path, filters: Any, columns: list[str] | None = None) -> pd.DataFrame:
    frame = pd.read_parquet(dataset_dir, engine="pyarrow", filters=filters, columns=columns)
    return frame.drop(columns=["year"], errors="ignore")


def _ts(cutoff: datetime) -> pa.Scalar:
    return pa.scalar(pd.Timestamp(cutoff).tz_convert("UTC"), type=pa.timestamp("us", tz="UTC"))


# ---------------------------------------------------------------- the reads


@dataclass(frozen=True)
class Read:
    name: str
    what: str
    lake: Callable[[], Result]
    naive: Callable[[], pd.DataFrame]
    columns: list[str]


def _reads(lake: Lake, root: Path, summary: dict[str, Any], args: argparse.Namespace) -> list[Read]:
    quotes_dir = root / "curated" / "quotes"
    factors_dir = root / "curated" / "adj_factors"
    fin_dir = root / "curated" / "financials"
    symbols: list[str] = summary["symbols"]
    symbol = args.symbol or symbols[len(symbols) // 3]
    first = date.fromisoformat(summary["first_session"])
    last = date.fromisoformat(summary["last_session"])
    day = date.fromisoformat(args.date) if args.date else _middle_session(first, last)
    fin_as_of = date.fromisoformat(args.fin_as_of) if args.fin_as_of else date(last.year - 1, 6, 30)
    q_cut, day_cut, fin_cut = (parse_cutoff(d) for d in (last, day, fin_as_of))
    quote_cols = [*get_schema("quotes").columns, "source", "known_at", "known_at_basis"]
    fin_cols = [*get_schema("financials").columns, "source", "known_at", "known_at_basis"]
    years = list(range(first.year, last.year + 1))

    def naive_history() -> pd.DataFrame:
        f = _read(
            quotes_dir,
            [("year", "in", years), ("symbol", "==", symbol), ("trade_date", ">=", first)],
        )
        f = f[f["trade_date"] <= last]
        return _latest(f, ["symbol", "trade_date"], pd.Timestamp(q_cut)).sort_values("trade_date")

    def naive_cross_section() -> pd.DataFrame:
        f = _read(quotes_dir, [("year", "==", day.year), ("trade_date", "==", day)])
        f = f[f["symbol"].isin(symbols)]
        return _latest(f, ["symbol", "trade_date"], pd.Timestamp(day_cut)).sort_values("symbol")

    def naive_qfq() -> pd.DataFrame:
        q = naive_history()
        f = _read(factors_dir, [("symbol", "==", symbol), ("year", "<=", last.year)])
        f = _latest(f, ["symbol", "trade_date"], pd.Timestamp(q_cut)).sort_values("trade_date")
        anchor = float(f["adj_factor"].iloc[-1])
        q = q.assign(__d=pd.to_datetime(q["trade_date"]))
        f = f.assign(__d=pd.to_datetime(f["trade_date"]))[["__d", "adj_factor"]]
        m = pd.merge_asof(q.sort_values("__d"), f.sort_values("__d"), on="__d")
        scale = m["adj_factor"] / anchor
        for c in PRICE_COLUMNS:
            m[c] = m[c] * scale
        return m.drop(columns=["__d"])

    fin_filter = pc.field("known_at") <= _ts(fin_cut)

    def naive_financials() -> pd.DataFrame:
        f = _read(fin_dir, fin_filter)
        f = f[f["symbol"].isin(symbols)]
        return _latest(f, FIN_KEY, pd.Timestamp(fin_cut))

    def naive_latest_report() -> pd.DataFrame:
        f = naive_financials()
        newest = f.groupby(["symbol", "statement", "report_type"])["report_period"].transform("max")
        return f[f["report_period"] == newest]

    n_years = last.year - first.year + 1
    return [
        Read(
            "history",
            f"one symbol's quotes, {first}…{last} ({n_years} year{'s' if n_years != 1 else ''})",
            lambda: lake.quotes(symbol, start=first, end=last, as_of=last),
            naive_history,
            quote_cols,
        ),
        Read(
            "history_qfq",
            "the same, qfq-adjusted (factors known at the cutoff)",
            lambda: lake.quotes(symbol, start=first, end=last, as_of=last, adjust="qfq"),
            naive_qfq,
            [*quote_cols, "adj_factor"],
        ),
        Read(
            "cross_section",
            f"all {len(symbols):,} symbols' quotes on {day}",
            lambda: lake.quotes(symbols, end=day, as_of=day),
            naive_cross_section,
            quote_cols,
        ),
        Read(
            "financials_asof",
            f"all symbols' statements as of {fin_as_of}: latest version per key, every period",
            lambda: lake.financials(symbols, as_of=fin_as_of),
            naive_financials,
            fin_cols,
        ),
        Read(
            "financials_latest",
            f"all symbols' latest report per statement as of {fin_as_of} (latest_only)",
            lambda: lake.financials(symbols, as_of=fin_as_of, latest_only=True),
            naive_latest_report,
            fin_cols,
        ),
    ]


def _middle_session(first: date, last: date) -> date:
    days = sessions_between(first, last)
    return days[len(days) // 2]


# ---------------------------------------------------------------- timing


@dataclass
class Timing:
    median_ms: float
    p90_ms: float
    samples_ms: list[float]
    # the process's CPU time (every thread): steadier than wall time on a shared machine,
    # where a loaded run's wall time is mostly waiting for a core
    cpu_median_ms: float | None = None


def _time(fn: Callable[[], Any], reps: int) -> tuple[Timing, Any]:
    t0 = time.perf_counter()
    result = fn()  # warm-up (file cache, DuckDB, the catalog's connection pool)
    if time.perf_counter() - t0 > SLOW_S:
        reps = min(reps, SLOW_REPS)
    samples = []
    for _ in range(reps):
        result = None
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        samples.append((time.perf_counter() - t0) * 1000)
    p90 = float(np.percentile(samples, 90))
    return Timing(statistics.median(samples), p90, samples), result


def _interleaved(fns: dict[str, Callable[[], Any]], reps: int) -> tuple[dict[str, Timing], dict]:
    """Each function once per round, in turn, `reps` rounds (after one warm-up round): on a
    shared machine a load change then hits every side alike, not whichever ran during it."""
    last = {}
    slow = False
    for name, fn in fns.items():
        t0 = time.perf_counter()
        last[name] = fn()
        slow = slow or time.perf_counter() - t0 > SLOW_S
    reps = min(reps, SLOW_REPS) if slow else reps
    samples: dict[str, list[float]] = {name: [] for name in fns}
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            last[name] = None
            gc.collect()
            c0, t0 = time.process_time(), time.perf_counter()
            last[name] = fn()
            samples[name].append((time.perf_counter() - t0) * 1000)
            cpu[name].append((time.process_time() - c0) * 1000)
    timings = {
        name: Timing(
            statistics.median(v), float(np.percentile(v, 90)), v, statistics.median(cpu[name])
        )
        for name, v in samples.items()
    }
    return timings, last


def _profile(fn: Callable[[], Any], top: int = 25) -> str:
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


@dataclass
class Row:
    name: str
    what: str
    rows: int
    checksum: str
    pitlake: Timing
    pandas: Timing

    @property
    def speedup(self) -> float:
        return self.pandas.median_ms / self.pitlake.median_ms


def run(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    summary = read_summary(root)
    lake = Lake(root, catalog_url=f"sqlite:///{root.resolve() / 'catalog.db'}")
    rows: list[Row] = []
    profiles: dict[str, str] = {}
    try:
        for read in _reads(lake, root, summary, args):
            if args.only and read.name not in args.only:
                continue
            reps = args.reps
            t_lake, res = _time(read.lake, reps)
            got = _fingerprint(_lake_frame(res), read.columns)
            del res
            t_naive, frame = _time(read.naive, reps)
            want = _fingerprint(frame, read.columns)
            del frame
            if got != want:
                raise SystemExit(
                    f"{read.name}: pitlake and pandas disagree: pitlake {got}, pandas {want}"
                )
            row = Row(read.name, read.what, got[0], got[1], t_lake, t_naive)
            rows.append(row)
            print(
                f"{read.name:18s} {row.rows:>9,} rows  pitlake {t_lake.median_ms:9.1f} ms "
                f"(p90 {t_lake.p90_ms:9.1f})  pandas {t_naive.median_ms:9.1f} ms "
                f"(p90 {t_naive.p90_ms:9.1f})  ×{row.speedup:.2f}  checksum {row.checksum}",
                flush=True,
            )
            if args.profile:
                profiles[read.name] = _profile(read.lake)
    finally:
        lake.close()
    report = {
        "machine": _machine(),
        "lake": str(root),
        "generated": {
            "config": summary["config"],
            "rows": summary["rows"],
            "timings_s": summary["timings_s"],
            "peak_rss_mib": summary["peak_rss_mib"],
        },
        "size_bytes": lake_size(root),
        "reps": args.reps,
        "reads": [{**asdict(r), "speedup": r.speedup} for r in rows],
    }
    if profiles:
        report["profiles"] = profiles
    return report


def _machine() -> dict[str, Any]:
    import platform

    import duckdb
    import pyarrow

    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {
        "cpus": os.cpu_count(),
        "memory_gib": round(mem / 2**30, 1),
        "python": platform.python_version(),
        "pandas": pd.__version__,
        "pyarrow": pyarrow.__version__,
        "duckdb": duckdb.__version__,
        "load_average": os.getloadavg(),
    }


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "| read | rows | pitlake median / p90 (ms) | pandas median / p90 (ms) | speed-up |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in report["reads"]:
        lines.append(
            f"| {r['what']} | {r['rows']:,} "
            f"| {r['pitlake']['median_ms']:,.1f} / {r['pitlake']['p90_ms']:,.1f} "
            f"| {r['pandas']['median_ms']:,.1f} / {r['pandas']['p90_ms']:,.1f} "
            f"| {r['speedup']:.2f}× |"
        )
    size = report["size_bytes"]
    gen = report["generated"]
    lines.append("")
    lines.append(
        "Lake on disk: "
        + ", ".join(f"{k} {v / 2**20:,.1f} MiB" for k, v in size.items())
        + f" (total {sum(size.values()) / 2**20:,.1f} MiB). Generated in "
        + f"{gen['timings_s']['total']:,.0f} s (peak RSS {gen['peak_rss_mib']:,.0f} MiB): "
        + ", ".join(f"{k} {v:,} rows" for k, v in gen["rows"].items())
        + "."
    )
    m = report["machine"]
    lines.append(
        f"Machine: {m['cpus']} cores, {m['memory_gib']} GiB, Python {m['python']}, pandas "
        f"{m['pandas']}, pyarrow {m['pyarrow']}, DuckDB {m['duckdb']}; load average "
        f"{m['load_average_before'][0]:.2f} before, {m['load_average'][0]:.2f} after; "
        f"{report['reps']} timed runs after one warm-up (at most {SLOW_REPS} for reads "
        f"over {SLOW_S:.0f} s)."
    )
    return "\n".join(lines)


# ---------------------------------------------------------------- against hand-written DuckDB


@dataclass
class Versus:
    name: str
    what: str
    rows: int
    duckdb: Timing  # the hand-written query on the same files, returned as Arrow
    forms: dict[str, Timing]  # pitlake, one entry per output form

    def ratio(self, form: str) -> float:
        return self.forms[form].median_ms / self.duckdb.median_ms


def _hand(con: Any, files: list[Path], where: str, key: Sequence[str], params: dict) -> Any:
    """The issue's baseline: read_parquet, known_at ≤ cutoff, newest version per key with
    QUALIFY row_number(), returned as Arrow."""
    sql = (
        "SELECT * FROM read_parquet($files) WHERE known_at <= $cutoff AND " + where + " "
        f"QUALIFY row_number() OVER (PARTITION BY {', '.join(key)} ORDER BY known_at DESC) = 1"
    )
    values = {"files": [str(f) for f in files], **params}
    return lambda: con.sql(sql, params=values).to_arrow_table()


def _same(name: str, got: pa.Table, want: pa.Table, columns: Sequence[str]) -> None:
    """Same rows (count and checksum of `columns`) or stop: a faster wrong answer is no answer."""
    cols = [c for c in columns if c in got.column_names and c in want.column_names]

    def utc(t: pa.Table) -> pd.DataFrame:  # the same instant prints the same in every zone
        t = t.select(cols)
        for i, f in enumerate(t.schema):
            if pa.types.is_timestamp(f.type):
                t = t.set_column(i, f.name, t.column(i).cast(pa.timestamp("us", tz="UTC")))
        return t.to_pandas()

    a = _fingerprint(utc(got), cols)
    b = _fingerprint(utc(want), cols)
    if a != b:
        raise SystemExit(f"{name}: pitlake and the DuckDB query disagree: {a} vs {b}")


def run_versus(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Every issue-16 read side by side with a hand-written DuckDB query on the same files, in
    one process: the pitlake read to a DataFrame (numpy and pyarrow dtypes) and to Arrow, the
    HTTP Arrow answer (in-process), /v1/snapshot of 50 symbols, and Lake.sql over a view."""
    import duckdb

    summary = read_summary(root)
    symbols: list[str] = summary["symbols"]
    symbol = args.symbol or symbols[len(symbols) // 3]
    first = date.fromisoformat(summary["first_session"])
    last = date.fromisoformat(summary["last_session"])
    day = date.fromisoformat(args.date) if args.date else _middle_session(first, last)
    fin_as_of = date.fromisoformat(args.fin_as_of) if args.fin_as_of else date(last.year - 1, 6, 30)
    q_cut, day_cut, fin_cut = (parse_cutoff(d) for d in (last, day, fin_as_of))
    curated = root / "curated"

    def files(ds: str, years: Sequence[int] | None = None) -> list[Path]:
        found = sorted((curated / ds).glob("*=*/*.parquet"))
        return [f for f in found if years is None or int(f.parent.name.split("=")[1]) in years]

    con = duckdb.connect()
    fin_key = ["symbol", "statement", "report_period", "report_type"]
    years = list(range(first.year, last.year + 1))
    hand_history = _hand(
        con,
        files("quotes", years),
        "symbol = $s AND trade_date BETWEEN $a AND $b",
        ["symbol", "trade_date"],
        {"cutoff": q_cut, "s": symbol, "a": first, "b": last},
    )
    hand_cross = _hand(
        con,
        files("quotes", [day.year]),
        "trade_date = $d",
        ["symbol", "trade_date"],
        {"cutoff": day_cut, "d": day},
    )
    hand_fin = _hand(con, files("financials"), "TRUE", fin_key, {"cutoff": fin_cut})
    fin_files = [str(f) for f in files("financials")]
    latest_sql = (
        "WITH v AS (SELECT * FROM read_parquet($files) WHERE known_at <= $cutoff "
        f"QUALIFY row_number() OVER (PARTITION BY {', '.join(fin_key)} "
        "ORDER BY known_at DESC) = 1) SELECT * FROM v QUALIFY report_period = "
        "max(report_period) OVER (PARTITION BY symbol, statement, report_type)"
    )

    def hand_latest() -> pa.Table:
        return con.sql(latest_sql, params={"files": fin_files, "cutoff": fin_cut}).to_arrow_table()

    lake = Lake(root, catalog_url=f"sqlite:///{root.resolve() / 'catalog.db'}")
    reads: list[tuple[str, str, Callable[[], Result], Callable[[], pa.Table]]] = [
        (
            "history",
            f"one symbol, {len(years)} years of quotes",
            lambda: lake.quotes(symbol, start=first, end=last, as_of=last),
            hand_history,
        ),
        (
            "cross_section",
            f"all {len(symbols):,} symbols on one session ({day})",
            lambda: lake.quotes(symbols, end=day, as_of=day),
            hand_cross,
        ),
        (
            "financials_asof",
            f"all statements as of {fin_as_of}",
            lambda: lake.financials(symbols, as_of=fin_as_of),
            hand_fin,
        ),
        (
            "financials_latest",
            f"latest report per symbol as of {fin_as_of}",
            lambda: lake.financials(symbols, as_of=fin_as_of, latest_only=True),
            hand_latest,
        ),
    ]
    out: list[Versus] = []
    extra: dict[str, Any] = {}
    try:
        for name, what, read, hand in reads:
            if args.only and name not in args.only:
                continue
            forms = {
                "duckdb": hand,
                "pandas": lambda read=read: read().to_pandas(),
                "pandas_pyarrow": lambda read=read: read().to_pandas("pyarrow"),
                # the same hand query made a numpy-dtype DataFrame, as pitlake's `pandas`
                "duckdb_pandas": lambda hand=hand: hand().to_pandas(),
                "arrow": lambda read=read: read().to_arrow(),
            }
            timings, answers = _interleaved(forms, args.reps)
            t_hand, want = timings.pop("duckdb"), answers["duckdb"]
            _same(name, answers["arrow"], want, [c for c in want.column_names if c != "extra"])
            del answers
            row = Versus(name, what, want.num_rows, t_hand, timings)
            out.append(row)
            print(
                f"{name:18s} {row.rows:>9,} rows  duckdb {t_hand.median_ms:8.1f} ms  "
                + "  ".join(
                    f"{f} {t.median_ms:8.1f} ms (×{row.ratio(f):.2f})" for f, t in timings.items()
                )
                + f"  | CPU duckdb {t_hand.cpu_median_ms:.0f} ms, "
                + ", ".join(
                    f"{f} {t.cpu_median_ms:.0f} (×{t.cpu_median_ms / t_hand.cpu_median_ms:.2f})"
                    for f, t in timings.items()
                    if t.cpu_median_ms is not None and t_hand.cpu_median_ms
                ),
                flush=True,
            )
            both = timings["pandas"].median_ms / timings["duckdb_pandas"].median_ms
            print(f"{'':18s} numpy DataFrames: pitlake / the hand query's ×{both:.2f}", flush=True)
            del want
        if not args.only or "http_sql" in args.only:  # --only …: the reads named, nothing else
            extra = _versus_http_and_sql(
                root, lake, args, symbols, hand_fin, hand_cross, day, fin_as_of, last
            )
    finally:
        lake.close()
        con.close()
    return {
        "machine": _machine(),
        "lake": str(root),
        "reps": args.reps,
        "reads": [{**asdict(r), "ratios": {f: r.ratio(f) for f in r.forms}} for r in out],
        **extra,
    }


def _versus_http_and_sql(
    root: Path,
    lake: Lake,
    args: argparse.Namespace,
    symbols: list[str],
    hand_fin: Callable[[], pa.Table],
    hand_cross: Callable[[], pa.Table],
    day: date,
    fin_as_of: date,
    last: date,
) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from pitlake.serve.api.app import create_app

    app = create_app(root, catalog_url=f"sqlite:///{root.resolve() / 'catalog.db'}", token="")
    report: dict[str, Any] = {}
    sql = Ask("GET", "/v1/sql", {"q": "SELECT * FROM financials", "as_of": fin_as_of.isoformat()})
    # /v1/financials cannot name 5,000 symbols in a GET (the URL is too long for the client,
    # and `symbols` stops at 500 symbols, 8,000 characters): the bulk answers are /v1/sql's
    # and POST /v1/financials's (the symbols in a JSON body). Each way in: the default body
    # (LZ4 record batches) and `compression=none`, in one run.
    post = Ask("POST", "/v1/financials", body={"symbols": symbols, "as_of": fin_as_of.isoformat()})
    with TestClient(app) as client:
        report["http_sql_arrow_financials"] = _versus_http(
            "http_sql_arrow_financials", hand_fin, client, "", sql, args.reps
        )
        report["http_post_arrow_financials"] = _versus_http(
            "http_post_arrow_financials", hand_fin, client, "", post, args.reps
        )
        fifty = ",".join(symbols[:: max(1, len(symbols) // 50)][:50])

        def snapshot() -> Any:
            r = client.get(
                "/v1/snapshot",
                params={"symbols": fifty, "date": last.isoformat(), "as_of": last.isoformat()},
            )
            assert r.status_code == 200, r.text[:300]
            return r

        t_snap, _ = _time(snapshot, max(args.reps, 9))
        report["snapshot_50"] = {"http_in_process": asdict(t_snap)}
        print(
            f"snapshot 50 symbols (in-process) {t_snap.median_ms:8.1f} ms (p90 {t_snap.p90_ms:.1f})",
            flush=True,
        )
    # the same answer through a real socket: uvicorn on 127.0.0.1 (a thread of this process),
    # read with httpx — what a client on the machine gets
    import httpx

    app = create_app(root, catalog_url=f"sqlite:///{root.resolve() / 'catalog.db'}", token="")
    with _loopback(app) as url, httpx.Client(timeout=300) as client:
        report["http_socket_arrow_financials"] = _versus_http(
            "http_socket_arrow_financials", hand_fin, client, url, sql, args.reps
        )
    # Lake.sql over a view vs the same question written by hand on the raw files
    sql_reads = [
        (
            "sql_cross_section",
            f"SELECT * FROM quotes WHERE trade_date = DATE '{day}'",
            day,
            hand_cross,
        ),
        ("sql_financials", "SELECT * FROM financials", fin_as_of, hand_fin),
    ]
    for name, q, as_of, hand in sql_reads:
        timings, answers = _interleaved(
            {"duckdb": hand, "sql": lambda q=q, as_of=as_of: lake.sql(q, as_of=as_of).to_arrow()},
            args.reps,
        )
        t_hand, t_sql, want, got = timings["duckdb"], timings["sql"], *answers.values()
        _same(name, got, want, [c for c in want.column_names if c not in ("seats", "extra")])
        report[name] = {
            "query": q,
            "rows": got.num_rows,
            "lake_sql": asdict(t_sql),
            "duckdb": asdict(t_hand),
            "ratio": t_sql.median_ms / t_hand.median_ms,
        }
        print(
            f"{name:26s} {got.num_rows:>9,} rows  Lake.sql {t_sql.median_ms:8.1f} ms  by hand "
            f"{t_hand.median_ms:8.1f} ms  ×{t_sql.median_ms / t_hand.median_ms:.2f}  | CPU "
            f"{t_sql.cpu_median_ms:.0f} vs {t_hand.cpu_median_ms:.0f} ms "
            f"(×{t_sql.cpu_median_ms / t_hand.cpu_median_ms:.2f})",
            flush=True,
        )
        del got, want, answers
    return report


@dataclass(frozen=True)
class Ask:
    """One HTTP question: method, path, query parameters and (POST) a JSON body."""

    method: str
    path: str
    params: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None


def _versus_http(
    name: str,
    hand: Callable[[], pa.Table],
    client: Any,
    url: str,
    ask: Ask,
    reps: int,
) -> dict[str, Any]:
    """`ask` at {url} as Arrow (the default body and compression=none) beside the hand
    query, interleaved; each answer checked against the hand query's."""
    from pitlake.serve.api.formats import ARROW_MEDIA

    body_bytes: dict[str, int] = {}

    def fetch(compression: str | None = None) -> pa.Table:
        given = {**ask.params, "compression": compression} if compression else ask.params
        r = client.request(
            ask.method,
            f"{url}{ask.path}",
            params=given,
            json=ask.body,
            headers={"Accept": ARROW_MEDIA},
        )
        assert r.status_code == 200, r.text[:300]
        body_bytes[compression or "default"] = len(r.content)
        return pa.ipc.open_stream(r.content).read_all()

    forms = {"duckdb": hand, "http": fetch, "http_none": lambda: fetch("none")}
    timings, answers = _interleaved(forms, reps)
    t_hand, want = timings.pop("duckdb"), answers.pop("duckdb")
    out: dict[str, Any] = {"rows": want.num_rows, "duckdb": asdict(t_hand), "bytes": body_bytes}
    for form, t in timings.items():
        got = answers.pop(form)
        _same(f"{name} {form}", got, want, [c for c in want.column_names if c != "extra"])
        size = body_bytes["none" if form == "http_none" else "default"]
        out[form] = {**asdict(t), "ratio": t.median_ms / t_hand.median_ms}
        print(
            f"{name:28s} {got.num_rows:>9,} rows  {form:9s} {t.median_ms:8.1f} ms  duckdb "
            f"{t_hand.median_ms:8.1f} ms  ×{t.median_ms / t_hand.median_ms:.2f}  | CPU "
            f"{t.cpu_median_ms:.0f} vs {t_hand.cpu_median_ms:.0f} ms "
            f"(×{t.cpu_median_ms / t_hand.cpu_median_ms:.2f})  body {size / 2**20:.1f} MiB",
            flush=True,
        )
    out["ratio"] = out["http"]["ratio"]
    return out


@contextlib.contextmanager
def _loopback(app: Any) -> Iterator[str]:
    """`app` served by uvicorn on 127.0.0.1 (a free port) in a thread, for the block."""
    import socket
    import threading

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--symbol", help="the one-symbol reads' symbol (default: one third in)")
    ap.add_argument("--date", help="the cross-section's session (default: the middle session)")
    ap.add_argument("--fin-as-of", help="the financials' as-of (default: June 30, a year back)")
    ap.add_argument("--only", nargs="*", help="run only these reads (by name)")
    ap.add_argument("--profile", action="store_true", help="cProfile each pitlake read once")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--vs-duckdb",
        action="store_true",
        help="the issue-16 comparison: every read to a DataFrame and Arrow, HTTP Arrow, the "
        "50-symbol snapshot and Lake.sql, each against a hand-written DuckDB query",
    )
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    if args.vs_duckdb:
        report = run_versus(args.lake, args)
        report["machine"]["load_average_before"] = load_before
        path = args.json or OUT / "bench_reads_vs_duckdb.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2) + "\n")
        return 0
    args.json = args.json or OUT / "bench_reads.json"
    report = run(args.lake, args)
    report["machine"]["load_average_before"] = load_before
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print()
    print(markdown(report))
    if args.profile:
        for name, text in report["profiles"].items():
            print(f"\n### profile: {name}\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
