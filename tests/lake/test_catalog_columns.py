"""A catalog made before a column was added (`catalog_columns`): read as before on a read-only
open, given the column by the next writable open, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import date

from pitlake.lake.catalog import Catalog


def test_a_writer_adds_the_columns_an_older_catalog_lacks(catalog: Catalog) -> None:
    catalog.record_ledger("news", "2025-04-30", "OK", rows=3, window_start="2025-04-01")
    with catalog.engine.begin() as conn:
        for table in ("ledger", "ledger_events"):
            conn.exec_driver_sql(f'ALTER TABLE "{table}" DROP COLUMN window_start')
    with Catalog(catalog.url, read_only=True) as old:
        assert old.missing_columns == {
            ("ledger", "window_start"),
            ("ledger_events", "window_start"),
        }
        assert [(e.rows, e.window_start) for e in old.ledger_entries("news")] == [(3, None)]
        assert old.ledger_history("news", "2025-04-30")[0].window_start is None
    with Catalog(catalog.url) as writer:
        writer.record_ledger("news", "2025-05-31", "OK", window_start="2025-05-01")
    with Catalog(catalog.url, read_only=True) as now:
        assert now.missing_columns == frozenset()
        starts = [e.window_start for e in now.ledger_entries("news")]
        assert starts == [None, date(2025, 5, 1)]
