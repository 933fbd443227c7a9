"""`/v1/snapshot` of 50 symbols, in-process: cold, warm with other symbols, per section, and the
hand-written DuckDB queries of the same rows in the same run.

    .venv/bin/python -m benchmarks.bench_snapshot --lake /tmp/synthlake --reps 15

- *cold*: the first snapshot of a freshly created app (new Lake, nothing kept), one per rep,
  each with another symbol set;
- *warm*: the same app, each call with another 50 symbols spread over the market (so no
  answer could be repeated from a cache; the session rows kept per file identity are reused);
- *per section*: each section's own read time within the warm calls;
- *by hand*: DuckDB on the raw files — the 50 symbols' quotes on the session (`known_at <=
  cutoff`, newest version per key) and their latest report per (statement, report_type) —
  interleaved with the warm calls;
- *scanned statements* (`--vs-scans`): the same warm calls with the financials section read by
  the scans instead of the kept statement files (`report_period.KEPT_SYMBOLS = 0`), each
  interleaved with a call on the kept files (which goes first alternates).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.bench_reads import DEFAULT_OUT, OUT, read_summary
from pitlake.pit import parse_cutoff


def _spread(symbols: list[str], offset: int, n: int = 50) -> list[str]:
    return symbols[offset % max(1, len(symbols) // n) :: max(1, len(symbols) // n)][:n]


def _ms(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t) * 1000, out


def _stats(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {
        "median_ms": round(statistics.median(xs), 1),
        "p90_ms": round(xs[min(len(xs) - 1, int(0.9 * len(xs)))], 1),
        "min_ms": round(xs[0], 1),
        "n": len(xs),
    }


def run(root: Path, reps: int, vs_scans: bool = False) -> dict[str, Any]:
    import duckdb
    from fastapi.testclient import TestClient

    import pitlake.serve.api.snapshot as snapshot
    from pitlake.read.readers import report_period
    from pitlake.serve.api.app import create_app

    summary = read_summary(root)
    symbols: list[str] = summary["symbols"]
    last = summary["last_session"]
    url = f"sqlite:///{root.resolve() / 'catalog.db'}"
    params = {"date": last, "as_of": last}

    def snap(client: TestClient, syms: list[str]) -> dict[str, Any]:
        r = client.get("/v1/snapshot", params={"symbols": ",".join(syms), **params})
        assert r.status_code == 200, r.text[:300]
        return r.json()

    cold: list[float] = []
    for i in range(max(3, reps // 3)):
        with TestClient(create_app(root, catalog_url=url, token="")) as client:
            cold.append(_ms(lambda c=client, i=i: snap(c, _spread(symbols, 1000 + i)))[0])

    sections: dict[str, list[float]] = defaultdict(list)
    real = snapshot._section

    def timed(lake: Any, spec: Any, *a: Any) -> Any:
        ms, out = _ms(lambda: real(lake, spec, *a))
        sections[spec.name].append(ms)
        return out

    curated = root / "curated"
    quote_file = [str(f) for f in sorted((curated / "quotes").glob(f"year={last[:4]}/*.parquet"))]
    fin_files = [str(f) for f in sorted((curated / "financials").glob("*=*/*.parquet"))]
    con = duckdb.connect()
    cutoff = parse_cutoff(last)
    hand_quotes_sql = (
        "SELECT * FROM read_parquet($f) WHERE trade_date = $d AND symbol IN (SELECT unnest($s)) "
        "AND known_at <= $c QUALIFY row_number() OVER (PARTITION BY symbol, trade_date "
        "ORDER BY known_at DESC) = 1"
    )
    hand_fin_sql = (
        "WITH v AS (SELECT * FROM read_parquet($f, union_by_name = true) WHERE known_at <= $c "
        "AND symbol IN (SELECT unnest($s)) QUALIFY row_number() OVER (PARTITION BY symbol, "
        "statement, report_period, report_type ORDER BY known_at DESC) = 1) SELECT * FROM v "
        "QUALIFY report_period = max(report_period) OVER (PARTITION BY symbol, statement, "
        "report_type)"
    )

    def hand(syms: list[str]) -> int:
        qp = {"f": quote_file, "d": last, "s": syms, "c": cutoff}
        q = con.sql(hand_quotes_sql, params=qp).to_arrow_table()
        f = con.sql(hand_fin_sql, params={"f": fin_files, "s": syms, "c": cutoff}).to_arrow_table()
        return q.num_rows + f.num_rows

    warm: list[float] = []
    by_hand: list[float] = []
    scanned: list[float] = []
    kept_symbols = report_period.KEPT_SYMBOLS

    def snap_scanned(client: TestClient, syms: list[str]) -> float:
        report_period.KEPT_SYMBOLS = 0
        snapshot._section = real  # type: ignore[assignment]  # its sections are not counted
        try:
            return _ms(lambda: snap(client, syms))[0]
        finally:
            report_period.KEPT_SYMBOLS = kept_symbols
            snapshot._section = timed  # type: ignore[assignment]

    with TestClient(create_app(root, catalog_url=url, token="")) as client:
        snap(client, _spread(symbols, 0))  # the app's first call (measured as cold above)
        snapshot._section = timed  # type: ignore[assignment]
        try:
            sections.clear()
            for i in range(reps):
                syms = _spread(symbols, i + 1)
                if vs_scans and i % 2:
                    scanned.append(snap_scanned(client, syms))
                warm.append(_ms(lambda s=syms: snap(client, s))[0])
                if vs_scans and not i % 2:
                    scanned.append(snap_scanned(client, syms))
                by_hand.append(_ms(lambda s=syms: hand(s))[0])
        finally:
            snapshot._section = real  # type: ignore[assignment]
    return {
        "machine": {"cpus": os.cpu_count(), "load_average_after": os.getloadavg()},
        "lake": str(root),
        "session": last,
        "cold_first_call": _stats(cold),
        "warm_other_symbols": _stats(warm),
        "by_hand_duckdb": _stats(by_hand),
        "sections_warm": {k: _stats(v) for k, v in sections.items()},
        **({"warm_statements_scanned": _stats(scanned)} if scanned else {}),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", type=Path, default=OUT / "bench_snapshot.json")
    ap.add_argument(
        "--vs-scans",
        action="store_true",
        help="also time each warm call with the statements scanned, not read from the kept files",
    )
    args = ap.parse_args(argv)
    before = os.getloadavg()
    report = run(args.lake, args.reps, args.vs_scans)
    report["machine"]["load_average_before"] = before
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
