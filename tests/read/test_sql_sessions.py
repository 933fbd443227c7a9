"""One-session SQL over a trade-dated view from the Lake's kept session rows
(`pitlake.read.sql_sessions`): the same answer as the file scan at every cutoff and
as-ingested instant, a version known after the cutoff staying out, other filters scanned from
the files, and a rewritten file read again."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pitlake.schemas import get as get_schema

from pitlake.lake.store import LakeStore
from pitlake.read import sql_answer as pit_sql
from pitlake.read.lake import Lake
from pitlake.read.sql_sessions import SessionedDataset
from tests.lake.conftest import bar

QUOTES = get_schema("quotes")
A, B, C = "600519.SH", "000001.SZ", "300750.SZ"
D1, D2, D3 = date(2025, 6, 3), date(2025, 6, 4), date(2025, 6, 5)


def t(day: int, hour: int = 12) -> datetime:
    return datetime(2025, 6, day, hour, tzinfo=UTC)


def _row(sym: str, day: date, close: float, known: datetime, ingested: datetime) -> dict:
    return {
        **bar(sym, day.isoformat(), close),
        "trade_date": day,
        "source": "tushare",
        "known_at": known,
        "known_at_basis": "vendor_close",
        "ingested_at": ingested,
        "run_id": f"r{close}",
    }


ROWS = [
    _row(A, D1, 10.0, t(3), t(3)),
    _row(B, D1, 20.0, t(3), t(3)),
    _row(A, D2, 11.0, t(4), t(4)),
    _row(A, D2, 11.5, t(6), t(6)),  # a correction of 06-04, public only on 06-06
    _row(B, D2, 21.0, t(4), t(7)),  # stored on 06-07: hidden as ingested before then
    _row(B, D2, 21.5, t(4), t(5)),  # the same known_at, stored earlier: loses the tie
    _row(C, D2, 30.0, t(9), t(9)),  # public only on 06-09
    _row(A, D3, 12.0, t(5), t(5)),
]


def _write(store: LakeStore, rows: list[dict[str, Any]]) -> Path:
    schema = QUOTES.arrow_schema
    table = pa.Table.from_pylist([{f.name: r.get(f.name) for f in schema} for r in rows], schema)
    path = Path(store.partition_path("quotes", "2025"))
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table.sort_by([("symbol", "ascending"), ("trade_date", "ascending")]), path)
    return path


ASKS = [(t(d), None) for d in (3, 4, 5, 6, 8, 9, 10)] + [(t(10), t(s)) for s in (4, 5, 6, 7)]
ONE_DAY = [
    f"SELECT * FROM quotes WHERE trade_date = DATE '{D2}' ORDER BY symbol",
    f"SELECT * FROM quotes_versions WHERE trade_date = DATE '{D2}' ORDER BY symbol, known_at, ingested_at",
    f"SELECT symbol, close FROM quotes WHERE trade_date = '{D1}' ORDER BY symbol",
    f"SELECT count(*) AS n, max(close) AS top FROM quotes WHERE trade_date = DATE '{D3}'",
]
OTHER = [
    f"SELECT * FROM quotes WHERE trade_date = DATE '{D2}' AND symbol = '{A}'",
    f"SELECT * FROM quotes WHERE trade_date BETWEEN DATE '{D1}' AND DATE '{D2}' ORDER BY 1, 2",
    f"SELECT * FROM quotes WHERE trade_date = DATE '{D2}' OR symbol = '{C}' ORDER BY 1, 2",
    "SELECT * FROM quotes ORDER BY symbol, trade_date",
]


def _answers(lake: Lake, queries: list[str]) -> list[list[dict[str, Any]]]:
    out = []
    for as_of, as_ingested in ASKS:
        for q in queries:
            r = lake.sql(q, as_of=as_of, as_ingested=as_ingested)
            assert r.ok, r.message
            out.append(r.rows)
    return out


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[date]:
    """The days the scans took from the kept session rows."""
    used: list[date] = []
    real = pit_sql.kept_session

    def spy(lake: Lake, schema: Any, day: date) -> pa.Table | None:
        used.append(day)
        return real(lake, schema, day)

    monkeypatch.setattr(pit_sql, "kept_session", spy)
    return used


def _from_files(lake: Lake, queries: list[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as m:
        m.setattr(pit_sql, "kept_session", lambda *a: None)
        return _answers(lake, queries)


def test_one_session_answers_what_the_files_answer(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(store, ROWS)
    want = _from_files(lake, ONE_DAY, monkeypatch)
    used = _counting(monkeypatch)
    got = _answers(lake, ONE_DAY)
    assert got == want
    assert sum(len(rows) for rows in got) > 40
    assert set(used) == {D1, D2, D3}  # every one-day statement took the kept session
    assert len(lake.sessions) == 3


def test_a_version_known_after_the_cutoff_stays_out(store: LakeStore, lake: Lake) -> None:
    _write(store, ROWS)
    q = f"SELECT symbol, close, known_at FROM quotes WHERE trade_date = DATE '{D2}' ORDER BY 1"
    at_5 = lake.sql(q, as_of=t(5)).rows
    assert [(r["symbol"], r["close"]) for r in at_5] == [(B, 21.0), (A, 11.0)]
    assert 30.0 not in [r["close"] for r in at_5]  # C's bar, public on 06-09
    at_9 = lake.sql(q, as_of=t(9)).rows
    assert [(r["symbol"], r["close"]) for r in at_9] == [(B, 21.0), (C, 30.0), (A, 11.5)]
    # as ingested on 06-05: B's 21.0 was not stored yet, its earlier-stored 21.5 is served
    early = lake.sql(q, as_of=t(9), as_ingested=t(5)).rows
    assert [(r["symbol"], r["close"]) for r in early] == [(B, 21.5), (A, 11.0)]
    versions = lake.sql(
        f"SELECT close FROM quotes_versions WHERE trade_date = DATE '{D2}'", as_of=t(5)
    ).rows
    assert sorted(r["close"] for r in versions) == [11.0, 21.0, 21.5]


def test_other_filters_scan_the_files(
    store: LakeStore, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(store, ROWS)
    want = _from_files(lake, OTHER, monkeypatch)
    used = _counting(monkeypatch)
    sessions_taken = []
    real = SessionedDataset._one_day

    def one_day(self: Any, filter: Any) -> date | None:
        day = real(self, filter)
        sessions_taken.append(day)
        return day

    monkeypatch.setattr(SessionedDataset, "_one_day", one_day)
    assert _answers(lake, OTHER) == want
    assert sessions_taken and not [d for d in sessions_taken if d is not None]
    assert used == []


def test_a_rewritten_file_is_read_again(store: LakeStore, lake: Lake) -> None:
    _write(store, ROWS)
    q = f"SELECT symbol, close FROM quotes WHERE trade_date = DATE '{D1}' ORDER BY 1"
    assert [r["close"] for r in lake.sql(q, as_of=t(10)).rows] == [20.0, 10.0]
    _write(store, [*ROWS, _row(C, D1, 99.0, t(3), t(8))])
    assert [r["close"] for r in lake.sql(q, as_of=t(10)).rows] == [20.0, 99.0, 10.0]


def test_a_statement_on_its_own_database_scans_the_files(store: LakeStore, lake: Lake) -> None:
    """`Lake.duckdb()` and multi-statement SQL have no Lake session store behind them."""
    _write(store, ROWS)
    con = lake.duckdb(as_of=t(5))
    try:
        rows = con.sql(f"SELECT close FROM quotes WHERE trade_date = DATE '{D2}'").fetchall()
    finally:
        con.close()
    assert sorted(r[0] for r in rows) == [11.0, 21.0]
    assert len(lake.sessions) == 0
