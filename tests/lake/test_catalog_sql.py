"""A read-only SQLite catalog reads the ledger without SQLAlchemy (decision 54): the statement
is `catalog_ledger.rows_statement` compiled ahead (`pitlake.lake.catalog_sql`), run through
`sqlite3` (`pitlake.lake.catalog_sqlite`). These hold the compiled text to the statement, the
rows to what SQLAlchemy returns, failures to SQLAlchemy's errors, and a `reading()` block to
one connection and one state when both paths run in it."""

from __future__ import annotations

import importlib.util
import sqlite3
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy.exc

from pitlake.lake import catalog_sql, readonly
from pitlake.lake.catalog import Catalog
from pitlake.lake.catalog_ledger import rows_statement
from tests.lake.conftest import bj

REPO = Path(__file__).resolve().parents[2]


def _script() -> Any:  # scripts/ is no package: load the generator by path
    spec = importlib.util.spec_from_file_location(
        "catalog_sql", REPO / "scripts" / "catalog_sql.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_compiled_statement_is_what_the_installed_sqlalchemy_compiles() -> None:
    """Fails after a change of the statement or the ledger table, or a SQLAlchemy whose SQLite
    dialect compiles it otherwise, until scripts/catalog_sql.py is rerun. (Not on the version
    alone: SQLAlchemy is not pinned, and a release that compiles the same text must not fail
    a fresh machine's CI.)"""
    on_disk = (REPO / "pitlake" / "lake" / "catalog_sql.py").read_text()
    assert on_disk == _script().render(catalog_sql.SQLALCHEMY)


def _planted(root: Path) -> None:
    """A ledger with what its columns can hold: whole-market and per-symbol entries, every
    kind of outcome, an instant with and without microseconds, a trace with CJK text, no
    vendor, a window, and another dataset."""
    with Catalog(lake_root=root) as cat:
        cat.record_ledger(
            "quotes",
            "2025-06-02",
            "OK",
            rows=11,
            vendor="tushare",
            trace=[{"vendor": "tushare", "outcome": "OK", "message": "11 行"}],
            message="served",
            at=bj("2025-06-02", "18:00"),
            run_id="r1",
        )
        cat.record_ledger(
            "quotes",
            "2025-06-03",
            "UPSTREAM_ERROR",
            message="502 from the vendor",
            at=datetime(2025, 6, 3, 10, 0, 0, 123456).astimezone(),
        )
        cat.record_ledger(
            "quotes", "2025-06-03", "NO_DATA", symbol="600519.SH", at=bj("2025-06-03", "18:00")
        )
        cat.record_ledger(
            "quotes",
            "2025-06-04",
            "OK",
            symbol="000001.SZ",
            rows=1,
            vendor="akshare",
            at=bj("2025-06-04", "18:00"),
        )
        cat.record_ledger(
            "news",
            "2025-06-03",
            "OK",
            symbol="600519.SH",
            rows=3,
            window_start="2025-05-01",
            symbols_asked=["600519.SH"],
            at=bj("2025-06-03", "20:00"),
        )


def _through_sqlalchemy(cat: Catalog, values: dict[str, Any]) -> list[tuple[Any, ...]]:
    with cat._read() as conn:
        return [tuple(r) for r in conn.execute(rows_statement("symbols" in values), values)]


ASKS: list[dict[str, Any]] = [
    {"dataset": "quotes", "start": date(2025, 6, 1), "end": date(2025, 6, 30)},
    {"dataset": "quotes", "start": date(2025, 6, 3), "end": date(2025, 6, 3)},
    {
        "dataset": "quotes",
        "start": date(2025, 6, 1),
        "end": date(2025, 6, 30),
        "symbols": ["600519.SH"],
    },
    {
        "dataset": "quotes",
        "start": date(2025, 6, 1),
        "end": date(2025, 6, 30),
        "symbols": ["*", "600519.SH", "000001.SZ"],
    },
    {
        "dataset": "quotes",
        "start": date(2025, 6, 1),
        "end": date(2025, 6, 30),
        "symbols": ["300750.SZ"],
    },
    {"dataset": "news", "start": datetime(2025, 6, 3, 23, 0), "end": date(2025, 6, 3)},
    {"dataset": "valuation", "start": date(2025, 6, 1), "end": date(2025, 6, 30)},
]


@pytest.mark.parametrize("ask", ASKS)
def test_the_rows_are_sqlalchemys(tmp_path: Path, ask: dict[str, Any]) -> None:
    _planted(tmp_path)
    with Catalog(lake_root=tmp_path, read_only=True) as fast:
        got = fast.ledger_rows(**ask)
        assert "engine" not in fast.__dict__  # answered without SQLAlchemy's engine
    with Catalog(lake_root=tmp_path, read_only=True) as slow:
        want = _through_sqlalchemy(slow, ask)
    assert got == want
    assert [tuple(map(type, r)) for r in got] == [tuple(map(type, r)) for r in want]
    if ask["dataset"] == "quotes" and "symbols" not in ask:
        assert got  # the comparison compared rows


def test_values_the_compiled_statement_does_not_take_go_through_sqlalchemy(
    tmp_path: Path,
) -> None:
    _planted(tmp_path)
    with Catalog(lake_root=tmp_path, read_only=True) as cat:
        assert cat.ledger_rows("quotes", date(2025, 6, 1), date(2025, 6, 30), symbols=[]) == []
        assert "engine" in cat.__dict__  # an empty IN is SQLAlchemy's to write


def test_a_failure_is_sqlalchemys_error(tmp_path: Path) -> None:
    """A damaged catalog fails as it did through SQLAlchemy (a catalog fault, exit 4)."""
    _planted(tmp_path)
    (tmp_path / "catalog.db").write_bytes(b"not a database, only text " * 100)
    with Catalog(lake_root=tmp_path, read_only=True) as cat:
        with pytest.raises(sqlalchemy.exc.DatabaseError) as fast:
            cat.ledger_rows("quotes", date(2025, 6, 1), date(2025, 6, 30))
        with pytest.raises(sqlalchemy.exc.DatabaseError) as slow:
            _through_sqlalchemy(
                cat, {"dataset": "quotes", "start": date(2025, 6, 1), "end": date(2025, 6, 30)}
            )
    assert type(fast.value) is type(slow.value)
    assert isinstance(fast.value.orig, sqlite3.DatabaseError)


def _opened(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one at each read-only connection opened."""
    seen: list[int] = []
    real = readonly.connect_read_only

    def counted(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        seen.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(readonly, "connect_read_only", counted)
    return seen


@pytest.mark.parametrize("engine_first", [False, True])
def test_a_block_with_both_paths_reads_one_connection_and_one_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine_first: bool
) -> None:
    """The ledger rows (sqlite3) and then a statement only SQLAlchemy runs, in one block, while
    a writer records a fetch: one connection, and neither read sees the write until the next
    block. Without an engine yet, it is made inside the block: its own first connection (which
    SQLAlchemy rolls back) must not be the block's."""
    _planted(tmp_path)
    writer = Catalog(lake_root=tmp_path)  # keeps catalog.db-wal: readers open mode=ro
    writer.ledger_entries("quotes")
    june = (date(2025, 6, 1), date(2025, 6, 30))
    try:
        with Catalog(lake_root=tmp_path, read_only=True) as cat:
            if engine_first:
                _ = cat.engine
            opened = _opened(monkeypatch)
            with cat.reading():
                before = cat.ledger_rows("quotes", *june)
                writer.record_ledger("quotes", "2025-06-05", "OK", at=bj("2025-06-05", "18:00"))
                latest = cat.latest_entry_dates(date(2025, 6, 30))  # SQLAlchemy's, adopting
                again = cat.ledger_rows("quotes", *june)
            assert len(opened) == (1 if engine_first else 2)  # + the engine's own first one
            after = cat.ledger_rows("quotes", *june)
    finally:
        writer.close()
    assert [r[0] for r in before] == [
        date(2025, 6, 2),
        date(2025, 6, 3),
        date(2025, 6, 3),
        date(2025, 6, 4),
    ]
    assert again == before
    assert latest == {"quotes": date(2025, 6, 4), "news": date(2025, 6, 3)}
    assert [r[0] for r in after][-1] == date(2025, 6, 5)


def test_a_block_begun_by_sqlalchemy_reads_the_ledger_rows_on_its_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _planted(tmp_path)
    with Catalog(lake_root=tmp_path, read_only=True) as cat:
        _ = cat.missing_columns
        opened = _opened(monkeypatch)
        with cat.reading():
            entries = cat.ledger_entries("quotes")
            rows = cat.ledger_rows("quotes", date(2025, 6, 1), date(2025, 6, 30))
    assert len(opened) == 1
    assert [r[:3] for r in rows] == [(e.date_key, e.symbol, e.status.value) for e in entries]
