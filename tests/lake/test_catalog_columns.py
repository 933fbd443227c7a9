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


def test_an_older_ledger_gains_the_symbols_asked(catalog: Catalog) -> None:
    catalog.record_ledger("news", "2025-04-30", "OK", rows=3, symbols_asked=["600519.SH"])
    with catalog.engine.begin() as conn:
        for table in ("ledger", "ledger_events"):
            conn.exec_driver_sql(f'ALTER TABLE "{table}" DROP COLUMN symbols_asked')
    with Catalog(catalog.url, read_only=True) as old:
        assert old.missing_columns == {
            ("ledger", "symbols_asked"),
            ("ledger_events", "symbols_asked"),
        }
        assert [e.symbols_asked for e in old.ledger_entries("news")] == [None]
        assert old.ledger_history("news", "2025-04-30")[0].symbols_asked is None
    with Catalog(catalog.url) as writer:
        writer.record_ledger(
            "news", "2025-05-31", "OK", symbols_asked=["603398.SH", "600519.SH", "603398.SH"]
        )
    with Catalog(catalog.url, read_only=True) as now:
        assert now.missing_columns == frozenset()
        asked = [e.symbols_asked for e in now.ledger_entries("news")]
        assert asked == [None, frozenset({"600519.SH", "603398.SH"})]
        assert now.ledger_history("news", "2025-05-31")[0].symbols_asked == asked[1]
        assert "symbols_asked" not in now.ledger_entries("news")[1].to_dict()


def test_a_whole_master_of_symbols_asked_stays_small(catalog: Catalog) -> None:
    """5,000 symbols are one entry's text of well under 20 kB (50 kB comma-joined)."""
    symbols = [f"{600000 + 7 * i}.SH" for i in range(2500)]
    symbols += [f"{i * 3:06d}.SZ" for i in range(1, 2501)]
    catalog.record_ledger("news", "2025-04-30", "OK", rows=1, symbols_asked=symbols)
    with catalog.engine.begin() as conn:
        (text,) = conn.exec_driver_sql("SELECT symbols_asked FROM ledger").one()
    assert len(text) < 20_000, len(text)
    assert catalog.ledger_entry("news", "2025-04-30").symbols_asked == frozenset(symbols)
