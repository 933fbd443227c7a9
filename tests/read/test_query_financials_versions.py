"""The statements' newest version per key, found by one sort in key order (DuckReader with
`order` = the key), is the same as the window's: newest known_at, ties to the later ingestion,
the newest version whole (its NULLs stay NULL), rows spread over files in any order."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pitlake.schemas import get as get_schema

from pitlake.read.engine import DuckReader, Params, visible

SCHEMA = get_schema("financials")
KEY = list(SCHEMA.key)


def t(day: int, hour: int = 0) -> datetime:
    return datetime(2025, 6, day, hour, tzinfo=UTC)


def rows() -> list[dict]:
    def r(sym: str, period: str, known: datetime, ingested: datetime, np_: float | None) -> dict:
        return {
            "symbol": sym,
            "statement": "income",
            "report_period": date.fromisoformat(period),
            "report_type": "1",
            "net_profit": np_,
            "known_at": known,
            "ingested_at": ingested,
        }

    return [
        r("B", "2024-12-31", t(1), t(2), 1.0),
        r("A", "2024-12-31", t(1), t(2), 2.0),
        r("A", "2024-12-31", t(3), t(4), None),  # newest: its NULL is served as NULL
        r("A", "2024-12-31", t(9), t(9), 99.0),  # after the cutoff
        r("A", "2025-03-31", t(2), t(3), 5.0),
        r("A", "2025-03-31", t(2), t(5), 6.0),  # same known_at, later ingestion: wins
        r("A", "2025-03-31", t(2), t(4), 7.0),
        r("C", "2025-03-31", t(8), t(8), 3.0),  # nothing visible
    ]


def test_one_sort_in_key_order_gives_the_windows_newest_versions(tmp_path: Path) -> None:
    table = pa.Table.from_pylist(rows())
    files = []
    for i, part in enumerate((table.slice(4), table.slice(0, 4))):  # versions split over files
        f = tmp_path / f"{i}.parquet"
        pq.write_table(part, f)
        files.append(f)
    reader = DuckReader()
    try:

        def read(order: list[str]) -> pa.Table:
            p = Params()
            where = visible(p, t(6), None)
            return reader.latest_versions(SCHEMA, files, where, p, order=order)

        sorted_once = read(KEY)
        by_window = read([]).sort_by([(k, "ascending") for k in KEY])
    finally:
        reader.close()
    assert sorted_once.to_pylist() == by_window.to_pylist()
    got = [
        (r["symbol"], r["report_period"].isoformat(), r["net_profit"])
        for r in sorted_once.to_pylist()
    ]
    assert got == [("A", "2024-12-31", None), ("A", "2025-03-31", 6.0), ("B", "2024-12-31", 1.0)]
