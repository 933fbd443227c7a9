"""`Lake.sql` runs a single SELECT on a cursor of one shared, locked DuckDB database per Lake
(read/sql_shared.py) and everything else on a database of its own. Sharing must leave no
trace: what one statement registers at its cutoff is not seen by the next statement (or a
concurrent one) at an earlier cutoff, and no statement can create anything the next one
reads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import duckdb
import pyarrow as pa
import pytest

from pitlake.read import sql, sql_guard
from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from tests.read.test_query_future_rows import CUTOFF, MARK, A, planted  # noqa: F401

LATE = "2025-12-31"
CLOSES = f"SELECT close FROM quotes WHERE symbol = '{A}' ORDER BY trade_date"


def _closes(lake: Lake, as_of: str) -> list[float]:
    r = lake.sql(CLOSES, as_of=as_of)
    assert r.status is ResultStatus.OK, r.message
    return [row["close"] for row in r.rows]


@pytest.mark.parametrize(
    ("query", "shared"),
    [
        ("SELECT 1", True),
        ("FROM quotes", True),
        ("WITH q AS (SELECT * FROM quotes) SELECT count(*) FROM q", True),
        ("DESCRIBE quotes", True),
        ("SELECT 1; SELECT 2", False),
        ("CREATE TABLE t AS SELECT 1", False),
        ("ATTACH ':memory:' AS other", False),
        ("EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1", False),
        ("SET VARIABLE x = 1", False),
        ("SELECT FROM WHERE", False),
    ],
)
def test_only_one_select_statement_shares_the_database(query: str, shared: bool) -> None:
    assert sql_guard.single_select(query) is shared


def test_a_later_cutoff_leaves_nothing_behind_for_an_earlier_one(planted: Lake) -> None:  # noqa: F811
    early = _closes(planted, CUTOFF)
    assert early and MARK not in early
    assert MARK in _closes(planted, LATE)  # the control: the planted row is there later
    assert _closes(planted, CUTOFF) == early  # the same database, the earlier answer again


def test_concurrent_statements_at_two_cutoffs_each_see_their_own(planted: Lake) -> None:  # noqa: F811
    early, late = _closes(planted, CUTOFF), _closes(planted, LATE)
    asks = [CUTOFF, LATE] * 12
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda as_of: _closes(planted, as_of), asks))
    assert got == [early if a == CUTOFF else late for a in asks]


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE TABLE leak AS SELECT * FROM quotes",
        "CREATE TABLE memory.main.leak AS SELECT * FROM quotes",
        "ATTACH ':memory:' AS leakdb; CREATE TABLE leakdb.leak AS SELECT * FROM quotes",
        "CREATE VIEW leak AS SELECT * FROM quotes_versions",
    ],
)
def test_what_a_statement_creates_is_gone_for_the_next_one(
    planted: Lake,  # noqa: F811
    statement: str,
) -> None:
    planted.sql(statement, as_of=LATE)  # runs on a database of its own, closed after
    for name in ("leak", "memory.main.leak", "leakdb.leak"):
        r = planted.sql(f"SELECT * FROM {name}", as_of=CUTOFF)
        assert r.status is ResultStatus.INVALID_ARGUMENTS, (name, r.rows)


def test_selects_open_no_database_after_the_first(
    planted: Lake,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _closes(planted, CUTOFF)  # the shared database exists from here
    opened: list[Any] = []
    real = duckdb.connect

    def counting(*a: Any, **kw: Any) -> duckdb.DuckDBPyConnection:
        opened.append(a)
        return real(*a, **kw)

    monkeypatch.setattr(duckdb, "connect", counting)
    for as_of in (CUTOFF, LATE, CUTOFF):
        _closes(planted, as_of)
    assert opened == []
    refused = planted.sql("SELECT 1; SELECT 2", as_of=CUTOFF)  # refused before any database
    assert refused.status is ResultStatus.INVALID_ARGUMENTS
    assert opened == []


def test_the_shared_database_reaches_no_file(planted: Lake) -> None:  # noqa: F811
    _closes(planted, CUTOFF)
    r = planted.sql(f"SELECT * FROM read_parquet('{planted.root}/quotes/**/*.parquet')")
    assert r.status is ResultStatus.INVALID_ARGUMENTS and "not reachable" in r.message
    r = planted.sql("SELECT current_setting('enable_external_access') AS on_ FROM calendar LIMIT 1")
    assert r.rows == [{"on_": False}]


def test_symbols_scanned_as_dictionaries_are_served_as_strings(planted: Lake) -> None:  # noqa: F811
    """A statement that never names `symbol` scans it as an Arrow dictionary (cheaper); the
    answer is the same rows, the symbol a plain string, as a statement naming it gets."""
    assert "symbol" in sql.scanned_as_dictionaries("SELECT * FROM financials")
    assert "symbol" not in sql.scanned_as_dictionaries("SELECT * FROM quotes WHERE SYMBOL = 'x'")
    for view in ("quotes", "financials", "quotes_qfq"):
        coded = planted.sql(f"SELECT * FROM {view}", as_of=LATE).to_arrow()
        plain = planted.sql(f"SELECT * FROM {view} WHERE symbol IS NOT NULL", as_of=LATE)
        assert coded.num_rows and coded.schema.field("symbol").type == pa.string(), view
        key = [(c, "ascending") for c in ("symbol", "known_at")]
        assert coded.sort_by(key).equals(plain.to_arrow().sort_by(key)), view
