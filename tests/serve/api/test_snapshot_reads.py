"""The snapshot's one-session reads: a session's stored rows are scanned once per file identity
(pitlake/lake/session_slices.py), and the point-in-time rules still apply per request."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pitlake.schemas import quotes

from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read import arguments, scans
from pitlake.read.engine import DuckReader
from pitlake.read.lake import Lake
from pitlake.read.readers import trade_dated
from tests.lake.conftest import INGEST, bar, bj, write

SYMS = [f"60000{i}.SH" for i in range(8)]
DAYS = ["2025-06-04", "2025-06-05"]
NOW = datetime(2025, 12, 31, 12, 0, tzinfo=bj("2025-06-03").tzinfo)


@pytest.fixture
def lake(tmp_path: Path) -> Iterator[Lake]:
    root = tmp_path / "lake"
    store = LakeStore(root)
    cat = Catalog(lake_root=root)
    write(store, "quotes", [bar(s, d, 10.0 + i) for i, s in enumerate(SYMS) for d in DAYS])
    for d in DAYS:
        cat.record_ledger("quotes", d, "OK", rows=len(SYMS), vendor="tushare", at=INGEST)
    with Lake(root, catalog=cat, clock=lambda: NOW) as lk:
        yield lk
    cat.close()


def _count_file_scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    scans: list[str] = []
    real = DuckReader.table

    def counting(self: DuckReader, sql: str, *args: Any, **kw: Any) -> Any:
        if "read_parquet" in sql:
            scans.append(sql)
        return real(self, sql, *args, **kw)

    monkeypatch.setattr(DuckReader, "table", counting)
    return scans


def _closes(result: Any) -> dict[str, float]:
    return {r["symbol"]: r["close"] for r in result.rows}


def test_other_symbols_on_the_same_session_scan_no_file_again(
    lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans = _count_file_scans(monkeypatch)
    first = lake.quotes(SYMS[:5], end="2025-06-05", as_of="2025-06-08")
    assert len(scans) == 1
    second = lake.quotes(SYMS[3:], end="2025-06-05", as_of="2025-06-08")
    assert len(scans) == 1  # the session's rows were kept: no second scan of the year file
    assert _closes(first) == {s: 10.0 + i for i, s in enumerate(SYMS[:5])}
    assert _closes(second) == {s: 10.0 + i + 3 for i, s in enumerate(SYMS[3:])}
    assert second.status == "OK" and second.effective_trade_date == "2025-06-05"


def test_kept_rows_still_obey_the_cutoff_and_a_rewrite_is_read_again(lake: Lake) -> None:
    syms = SYMS[:6]
    before = lake.quotes(syms, end="2025-06-05", as_of="2025-06-08")
    assert _closes(before)[SYMS[0]] == 10.0
    # a correction of SYMS[0] on 06-05, public only from 06-20: the partition is rewritten
    late = bar(SYMS[0], "2025-06-05", 99.0)
    late["known_at"] = bj("2025-06-20", "09:00")
    write(lake.store, "quotes", [late], ingested_at=INGEST + timedelta(days=15))
    at_8 = lake.quotes(syms, end="2025-06-05", as_of="2025-06-08")
    at_21 = lake.quotes(syms, end="2025-06-05", as_of="2025-06-21")
    assert _closes(at_8)[SYMS[0]] == 10.0  # not public at the 8th, from the kept rows too
    assert _closes(at_21)[SYMS[0]] == 99.0  # the rewritten file was read again
    # the same rows as the uncached reads of a few symbols each (no session slice there)
    few = {**_closes(lake.quotes(syms[:3], end="2025-06-05", as_of="2025-06-21"))}
    few.update(_closes(lake.quotes(syms[3:], end="2025-06-05", as_of="2025-06-21")))
    assert few == _closes(at_21)


def test_kept_rows_answer_as_the_file_scan_does_for_as_ingested_and_hidden_rows(
    lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept-rows path against the file scan it replaces, envelope for envelope: a version
    stored later (as_ingested before it), and a session not public yet (hidden rows)."""
    late = bar(SYMS[1], "2025-06-05", 55.0)  # a correction, public on the 6th
    late["known_at"] = bj("2025-06-06", "09:00")
    write(lake.store, "quotes", [late], ingested_at=INGEST + timedelta(days=2))
    asks: list[dict[str, Any]] = [
        {"as_of": "2025-06-21"},
        {"as_of": "2025-06-21", "as_ingested": INGEST + timedelta(days=1)},
        {"as_of": "2025-06-05T10:00"},  # 06-05's bars are not public before the close
    ]
    kept = [lake.quotes(SYMS, end="2025-06-05", **a).to_dict() for a in asks]
    monkeypatch.setattr(scans, "session_slice", lambda *_: None)  # the file scan
    scanned = [lake.quotes(SYMS, end="2025-06-05", **a).to_dict() for a in asks]
    assert kept == scanned
    closes = [{r["symbol"]: r["close"] for r in k["data"]}[SYMS[1]] for k in kept[:2]]
    assert closes == [55.0, 11.0]
    assert kept[2]["status"] == "NOT_READY" and kept[2]["data"] == []


def test_kept_sessions_are_bounded_and_a_remote_file_is_never_kept(tmp_path: Path) -> None:
    import pyarrow as pa

    from pitlake.read.session_slices import SessionSlices

    f = tmp_path / "part.parquet"
    f.write_bytes(b"x")
    kept = SessionSlices(max_slices=2)
    reads: list[int] = []

    def read(i: int) -> pa.Table:
        reads.append(i)
        return pa.table({"i": [i]})

    def got(table: pa.Table | None) -> int | None:
        return None if table is None else table.column("i")[0].as_py()

    days = [datetime(2025, 6, d).date() for d in (3, 4, 5)]
    for i, d in enumerate(days):
        assert got(kept.get("quotes", d, [f], lambda i=i: read(i))) == i
    assert len(kept) == 2 and got(kept.get("quotes", days[2], [f], lambda: read(9))) == 2
    assert got(kept.get("quotes", days[0], [f], lambda: read(7))) == 7  # evicted: read again
    assert kept.get("quotes", days[0], ["s3://bucket/part.parquet"], lambda: read(8)) is None
    # the bytes bound evicts the oldest too, whatever the count
    small = SessionSlices(max_slices=100, max_bytes=pa.table({"i": [0]}).nbytes * 2)
    for i, d in enumerate(days):
        small.get("quotes", d, [f], lambda i=i: read(i))
    assert len(small) == 2


def test_a_window_of_days_is_one_scan_split_by_day(tmp_path: Path) -> None:
    """Missing days of a kept window are read by one scan and kept per day, an empty day
    too; a later window that overlaps reads only its new days."""
    import pyarrow as pa

    from pitlake.read.session_slices import SessionSlices

    f = tmp_path / "part.parquet"
    f.write_bytes(b"x")
    kept = SessionSlices()
    day = [datetime(2025, 6, d).date() for d in range(2, 8)]
    asked: list[list[Any]] = []

    def read(missing: list[Any]) -> pa.Table:
        asked.append(list(missing))
        have = [d for d in missing if d.weekday() < 5]
        return pa.table({"trade_date": have, "v": [d.day for d in have]})

    first = kept.get_days("quotes", day[:4], [f], read, "trade_date")
    assert first is not None and asked == [day[:4]]
    assert {d: t.column("v").to_pylist() for d, t in first.items()} == {d: [d.day] for d in day[:4]}
    again = kept.get_days("quotes", day[2:], [f], read, "trade_date")
    assert again is not None and asked[1] == day[4:]  # only the new days were read
    assert again[day[5]].num_rows == 0  # Saturday 06-07: kept as an empty day
    assert again[day[2]].column("v").to_pylist() == [4]


def _whole_market(
    lake: Lake, *, as_of: str, as_ingested: Any = None, **dates: str
) -> dict[str, Any]:
    """The whole market's quotes (no symbols: the read the market overview starts from)."""
    ask = lake.ask(as_of, as_ingested)
    start, end = arguments.one_session(dates.get("date"), dates.get("start"), dates.get("end"))
    win = arguments.window(start, end, ask, lake.trading_calendar)
    return trade_dated.answer(lake, quotes.SCHEMA, None, win, ask).to_dict()


def test_whole_market_reads_from_kept_days_answer_as_the_file_scan_does(
    lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole-market session and a two-session range, from the kept days and from the file
    scan they replace, envelope for envelope: a correction public later stays out before it
    is public, an as_ingested before it, and a session not public yet (hidden rows)."""
    late = bar(SYMS[2], "2025-06-05", 77.0)
    late["known_at"] = bj("2025-06-09", "09:00")
    write(lake.store, "quotes", [late], ingested_at=INGEST + timedelta(days=4))
    asks: list[dict[str, Any]] = [
        {"date": "2025-06-05", "as_of": "2025-06-08"},
        {"date": "2025-06-05", "as_of": "2025-06-21"},
        {"date": "2025-06-05", "as_of": "2025-06-21", "as_ingested": INGEST + timedelta(days=1)},
        {"start": "2025-06-04", "end": "2025-06-05", "as_of": "2025-06-21"},
        {"date": "2025-06-05", "as_of": "2025-06-05T10:00"},
    ]
    file_scans = _count_file_scans(monkeypatch)
    kept = [_whole_market(lake, **a) for a in asks]
    assert len(file_scans) == 2  # 06-05 once; 06-04 once, for the range; then all kept
    monkeypatch.setattr(scans, "window_slices", lambda *_: None)  # the file scan
    scanned = [_whole_market(lake, **a) for a in asks]
    assert kept == scanned
    closes = [{r["symbol"]: r["close"] for r in k["data"]}.get(SYMS[2]) for k in kept]
    assert closes[:3] == [12.0, 77.0, 12.0]
    assert kept[3]["meta"]["rows"] == 2 * len(SYMS)
    assert kept[4]["status"] == "NOT_READY" and kept[4]["data"] == []
