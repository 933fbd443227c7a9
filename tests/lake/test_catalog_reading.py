"""`Catalog.reading`: one connection and one state of the ledger for a block of reads (an
answer, a snapshot's sections), never kept past the block."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event

from pitlake.lake.catalog import Catalog
from tests.lake.conftest import bj


def _checkouts(catalog: Catalog) -> list[int]:
    """A list that grows by one at each connection the catalog's pool hands out."""
    seen: list[int] = []

    def count(*_: Any) -> None:
        seen.append(1)

    event.listen(catalog.engine, "checkout", count)
    return seen


def _record(catalog: Catalog, day: str, status: str = "OK", symbol: str = "*") -> None:
    catalog.record_ledger("quotes", day, status, symbol=symbol, at=bj(day, "18:00"))


def test_reads_in_a_block_share_one_connection(catalog: Catalog) -> None:
    _record(catalog, "2025-06-03")
    seen = _checkouts(catalog)
    catalog.ledger_entries("quotes")
    catalog.ledger_rows("quotes", bj("2025-06-01").date(), bj("2025-06-30").date())
    assert len(seen) == 2  # outside a block: a connection per read, as before
    seen.clear()
    with catalog.reading():
        a = catalog.ledger_entries("quotes", symbol=["*", "600519.SH"])
        rows = catalog.ledger_rows("quotes", bj("2025-06-01").date(), bj("2025-06-30").date())
        with catalog.reading():  # nested: the outer block's connection
            one = catalog.ledger_entry("quotes", "2025-06-03")
        latest = catalog.latest_ok_dates(bj("2025-06-30").date())
    assert len(seen) == 1
    assert [e.date_key.isoformat() for e in a] == ["2025-06-03"]
    assert [r[:3] for r in rows] == [(bj("2025-06-03").date(), "*", "OK")]
    assert one is not None and one.status == "OK"
    assert latest == {"quotes": bj("2025-06-03").date()}


def test_a_block_sees_one_state_and_the_next_block_sees_a_new_fetch(catalog: Catalog) -> None:
    _record(catalog, "2025-06-03")
    writer = Catalog(catalog.url)  # another process's catalog on the same database
    try:
        with catalog.reading():
            before = catalog.ledger_entries("quotes")
            _record(writer, "2025-06-04", "UPSTREAM_ERROR")
            during = catalog.ledger_entries("quotes")
        after = catalog.ledger_entries("quotes")
        with catalog.reading():
            again = catalog.ledger_entries("quotes")
    finally:
        writer.close()
    assert [e.date_key.isoformat() for e in before] == ["2025-06-03"]
    assert during == before  # every read of the block: the state its first read saw
    assert [(e.date_key.isoformat(), e.status) for e in after] == [
        ("2025-06-03", "OK"),
        ("2025-06-04", "UPSTREAM_ERROR"),
    ]
    assert again == after  # nothing kept from the earlier block


def test_a_failed_read_leaves_the_block_a_fresh_connection(catalog: Catalog) -> None:
    _record(catalog, "2025-06-03")
    seen = _checkouts(catalog)
    with catalog.reading():
        catalog.ledger_entries("quotes")
        with pytest.raises(RuntimeError), catalog._read():
            raise RuntimeError("a statement failed")
        entries = catalog.ledger_entries("quotes")
    assert len(seen) == 2
    assert [e.date_key.isoformat() for e in entries] == ["2025-06-03"]


def test_writes_inside_a_block_commit_on_their_own_connection(catalog: Catalog) -> None:
    with catalog.reading():
        _record(catalog, "2025-06-03")
    # committed, not part of the block's read transaction (rolled back at its end)
    assert [e.date_key.isoformat() for e in catalog.ledger_entries("quotes")] == ["2025-06-03"]
