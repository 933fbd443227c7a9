"""The fetch ledger, the source of every answer's status: per (dataset, date, symbol) the last
fetch outcome ('*' = a whole-market fetch), and in `ledger_events` every record for history.
A mixin of `pitlake.lake.catalog.Catalog` (which gives it `_tx`).

The statements are SQLAlchemy Core, built here and nowhere else. SQLAlchemy and the tables are
imported by the methods: a read of a read-only SQLite catalog runs `ledger_rows` without them,
from this module's statement compiled ahead by SQLAlchemy (`pitlake.lake.catalog_sql`,
`pitlake.lake.catalog_sqlite`; decision 54)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pitlake.calendar import to_date
from pitlake.lake import catalog_sqlite
from pitlake.lake.catalog_values import LedgerEntry, from_storage, json_safe, to_utc_naive
from pitlake.lake.symbol_sets import decode_symbols, encode_symbols
from pitlake.statuses import SUCCESSFUL_FETCH, LedgerStatus

if TYPE_CHECKING:
    import sqlite3

    from sqlalchemy import Select
    from sqlalchemy.engine import Connection, Engine

WHOLE_MARKET = "*"


@cache
def _entries_stmt(
    dataset: bool, start: bool, end: bool, symbols: bool, missing: frozenset[tuple[str, str]]
) -> Select[Any]:
    """`ledger_entries`' statement for the filters given, built once (its bound values per
    call): building a select per call was ~0.3 ms of each ledger query."""
    from sqlalchemy import bindparam, select

    from pitlake.lake.catalog_columns import selected
    from pitlake.lake.catalog_tables import ledger_table

    t = ledger_table.c
    stmt = select(*selected(ledger_table, missing))
    if dataset:
        stmt = stmt.where(t.dataset == bindparam("dataset"))
    if start:
        stmt = stmt.where(t.date_key >= bindparam("start"))
    if end:
        stmt = stmt.where(t.date_key <= bindparam("end"))
    if symbols:
        stmt = stmt.where(t.symbol.in_(bindparam("symbols", expanding=True)))
    return stmt.order_by(t.dataset, t.date_key, t.symbol)


@cache
def rows_statement(symbols: bool) -> Select[Any]:
    """`ledger_rows`' statement, built once (see `_entries_stmt`); compiled for SQLite ahead
    of time into `pitlake.lake.catalog_sql` by `scripts/catalog_sql.py`."""
    from sqlalchemy import String, bindparam, cast, select

    from pitlake.lake.catalog_tables import ledger_table

    t = ledger_table.c
    stmt = select(
        t.date_key,
        t.symbol,
        t.status,
        t.row_count,
        t.vendor,
        t.message,
        t.run_id,
        t.recorded_at,
        cast(t.trace, String).label("trace_text"),
    ).where(
        t.dataset == bindparam("dataset"),
        t.date_key >= bindparam("start"),
        t.date_key <= bindparam("end"),
    )
    if symbols:
        stmt = stmt.where(t.symbol.in_(bindparam("symbols", expanding=True)))
    return stmt.order_by(t.date_key, t.symbol)


class SymbolEntryCount(NamedTuple):
    """Per-symbol ledger entries of one dataset, date and status, counted."""

    dataset: str
    date_key: date
    status: str
    count: int
    rows: int
    example_symbol: str


class LedgerRecords:
    """Recording and reading the ledger."""

    engine: Engine  # Catalog's
    missing_columns: frozenset[tuple[str, str]]  # Catalog's
    _sqlite_file: Path | None  # Catalog's: a read-only SQLite catalog's file

    def _tx(self, *, write: bool = False) -> Iterator[Connection]:  # Catalog's
        raise NotImplementedError

    def _read(self) -> Iterator[Connection]:  # Catalog's
        raise NotImplementedError

    def _sqlite_read(self) -> Iterator[sqlite3.Connection]:  # Catalog's
        raise NotImplementedError

    def record_ledger(
        self,
        dataset: str,
        date_key: date | str,
        status: LedgerStatus | str,
        *,
        symbol: str = WHOLE_MARKET,
        rows: int = 0,
        vendor: str | None = None,
        trace: Iterable[Mapping[str, Any]] = (),
        message: str = "",
        run_id: str | None = None,
        at: datetime | None = None,
        window_start: date | str | None = None,
        symbols_asked: Iterable[str] | None = None,
    ) -> LedgerEntry:
        """Record one fetch outcome: the ledger keeps the latest per key (by `at`), the
        events table keeps them all. `window_start`: the first day a windowed fetch covered
        (its last is `date_key`), so a read as of an earlier day knows the fetch says
        nothing about it. `symbols_asked`: the symbols a successful fetch over the security
        master asked (stored compact, `symbol_sets`)."""
        from sqlalchemy import insert

        from pitlake.lake.catalog_engine import upsert
        from pitlake.lake.catalog_tables import ledger_events_table, ledger_table

        status = LedgerStatus(status)
        if rows < 0:
            raise ValueError(f"rows must be >= 0, got {rows}")
        values = {
            "dataset": dataset,
            "date_key": to_date(date_key),
            "symbol": symbol or WHOLE_MARKET,
            "status": status.value,
            "row_count": int(rows),
            "vendor": vendor,
            "trace": json_safe(list(trace)),
            "message": message or "",
            "run_id": run_id,
            "recorded_at": to_utc_naive(at),
            "window_start": to_date(window_start) if window_start is not None else None,
            "symbols_asked": encode_symbols(symbols_asked) if symbols_asked is not None else None,
        }
        with self._tx(write=True) as conn:
            conn.execute(insert(ledger_events_table).values(**values))
            upsert(
                conn,
                ledger_table,
                values,
                ["dataset", "date_key", "symbol"],
                unless_newer="recorded_at",
            )
        return self._entry(values)

    def ledger_entry(
        self, dataset: str, date_key: date | str, symbol: str = WHOLE_MARKET
    ) -> LedgerEntry | None:
        from sqlalchemy import select

        from pitlake.lake.catalog_columns import selected
        from pitlake.lake.catalog_tables import ledger_table

        t = ledger_table.c
        stmt = select(*selected(ledger_table, self.missing_columns)).where(
            t.dataset == dataset, t.date_key == to_date(date_key), t.symbol == symbol
        )
        with self._tx() as conn:
            row = conn.execute(stmt).first()
        return self._entry(row._mapping) if row else None

    def ledger_entries(
        self,
        dataset: str | None = None,
        start: date | str | None = None,
        end: date | str | None = None,
        symbol: str | Iterable[str] | None = None,
    ) -> list[LedgerEntry]:
        """Latest entries, ordered by dataset, date, symbol. `symbol` may be one or several."""
        values: dict[str, Any] = {}
        if dataset is not None:
            values["dataset"] = dataset
        if start is not None:
            values["start"] = to_date(start)
        if end is not None:
            values["end"] = to_date(end)
        if symbol is not None:
            values["symbols"] = [symbol] if isinstance(symbol, str) else list(symbol)
        stmt = _entries_stmt(
            *(k in values for k in ("dataset", "start", "end", "symbols")), self.missing_columns
        )
        with self._tx() as conn:
            return [self._entry(r._mapping) for r in conn.execute(stmt, values)]

    def ledger_history(
        self, dataset: str, date_key: date | str, symbol: str = WHOLE_MARKET
    ) -> list[LedgerEntry]:
        """Every record for one key, oldest first."""
        from sqlalchemy import select

        from pitlake.lake.catalog_columns import selected
        from pitlake.lake.catalog_tables import ledger_events_table

        t = ledger_events_table.c
        stmt = (
            select(*selected(ledger_events_table, self.missing_columns))
            .where(t.dataset == dataset, t.date_key == to_date(date_key), t.symbol == symbol)
            .order_by(t.recorded_at, t.id)
        )
        with self._tx() as conn:
            return [self._entry(r._mapping) for r in conn.execute(stmt)]

    def latest_ok_date(
        self,
        dataset: str,
        *,
        statuses: Iterable[LedgerStatus] = SUCCESSFUL_FETCH,
    ) -> date | None:
        """The latest date with a successful fetch (OK or NO_DATA by default): freshness."""
        from sqlalchemy import func, select

        from pitlake.lake.catalog_tables import ledger_table

        t = ledger_table.c
        wanted = [LedgerStatus(s).value for s in statuses]
        stmt = select(func.max(t.date_key)).where(t.dataset == dataset, t.status.in_(wanted))
        with self._tx() as conn:
            return conn.execute(stmt).scalar_one_or_none()

    def latest_ok_dates(self, until: date) -> dict[str, date]:
        """Per dataset, the latest date on or before `until` with a successful fetch (OK or
        NO_DATA) for any scope: the freshness the status endpoint and the dashboard show."""
        from sqlalchemy import func, select

        from pitlake.lake.catalog_tables import ledger_table

        t = ledger_table.c
        ok = [s.value for s in SUCCESSFUL_FETCH]
        stmt = (
            select(t.dataset, func.max(t.date_key))
            .where(t.status.in_(ok), t.date_key <= until)
            .group_by(t.dataset)
        )
        with self._tx() as conn:
            return dict(conn.execute(stmt).all())  # type: ignore[arg-type]

    def last_successful_fetches(self, by: datetime) -> dict[str, tuple[datetime, date]]:
        """Per dataset, the latest successful fetch (OK or NO_DATA) recorded at or before
        `by` (aware): (when it was recorded, the date it was about). From `ledger_events`,
        so a later record of the same key (a refetch, a failure) neither hides it nor shows
        through: the catalogue's "last successful fetch" as of a cutoff."""
        from sqlalchemy import func, select

        from pitlake.lake.catalog_tables import ledger_events_table

        t = ledger_events_table.c
        ok = [s.value for s in SUCCESSFUL_FETCH]
        latest = (
            select(t.dataset, func.max(t.recorded_at).label("at"))
            .where(t.status.in_(ok), t.recorded_at <= to_utc_naive(by))
            .group_by(t.dataset)
            .subquery()
        )
        stmt = (
            select(t.dataset, t.recorded_at, func.max(t.date_key))
            .join(latest, (t.dataset == latest.c.dataset) & (t.recorded_at == latest.c.at))
            .where(t.status.in_(ok))
            .group_by(t.dataset, t.recorded_at)
        )
        with self._tx() as conn:
            return {
                ds: (from_storage(at), day)  # type: ignore[misc]
                for ds, at, day in conn.execute(stmt).all()
            }

    def ledger_rows(
        self, dataset: str, start: date, end: date, symbols: Iterable[str] | None = None
    ) -> list[tuple[Any, ...]]:
        """A dataset's latest entries over [start, end] as plain rows, ordered by date and
        symbol: (date_key, symbol, status, row_count, vendor, message, run_id, recorded_at as
        stored, trace as JSON text). For the gap analysis, which builds a LedgerEntry only for
        the rows an answer shows (`from_row`). `symbols` None: every scope."""
        values: dict[str, Any] = {"dataset": dataset, "start": start, "end": end}
        if symbols is not None:
            values["symbols"] = list(symbols)
        if self._sqlite_file is not None and catalog_sqlite.takes(values):
            with self._sqlite_read() as raw:  # a read-only SQLite catalog: no SQLAlchemy
                return catalog_sqlite.ledger_rows(raw, values)
        with self._read() as conn:
            rows = conn.execute(rows_statement(symbols is not None), values).all()
        return [tuple(r) for r in rows]

    def latest_entry_dates(self, until: date) -> dict[str, date]:
        """Per dataset, the latest date on or before `until` with any ledger entry, whatever
        its status: the dataset's last attempt."""
        from sqlalchemy import func, select

        from pitlake.lake.catalog_tables import ledger_table

        t = ledger_table.c
        stmt = (
            select(t.dataset, func.max(t.date_key)).where(t.date_key <= until).group_by(t.dataset)
        )
        with self._tx() as conn:
            return dict(conn.execute(stmt).all())  # type: ignore[arg-type]

    def ledger_datasets(self) -> set[str]:
        """Every dataset the ledger holds an entry for."""
        from sqlalchemy import select

        from pitlake.lake.catalog_tables import ledger_table

        with self._tx() as conn:
            return {r[0] for r in conn.execute(select(ledger_table.c.dataset).distinct())}

    def symbol_entry_counts(self, start: date, end: date) -> list[SymbolEntryCount]:
        """The per-symbol entries (not whole-market ones) dated in [start, end], grouped by
        dataset, date and status: how many, their rows, and one of their symbols."""
        from sqlalchemy import func, select

        from pitlake.lake.catalog_tables import ledger_table

        t = ledger_table.c
        stmt = (
            select(
                t.dataset,
                t.date_key,
                t.status,
                func.count(),
                func.sum(t.row_count),
                func.min(t.symbol),
            )
            .where(t.symbol != WHOLE_MARKET, t.date_key >= start, t.date_key <= end)
            .group_by(t.dataset, t.date_key, t.status)
        )
        with self._tx() as conn:
            return [
                SymbolEntryCount(ds, d, status, int(n), int(rows or 0), example)
                for ds, d, status, n, rows, example in conn.execute(stmt).all()
            ]

    @staticmethod
    def _entry(m: Mapping[str, Any]) -> LedgerEntry:
        return LedgerEntry(
            dataset=m["dataset"],
            date_key=m["date_key"],
            symbol=m["symbol"],
            status=LedgerStatus(m["status"]),
            rows=int(m["row_count"]),
            vendor=m["vendor"],
            trace=list(m["trace"] or []),
            message=m["message"] or "",
            run_id=m["run_id"],
            recorded_at=from_storage(m["recorded_at"]),  # type: ignore[arg-type]
            window_start=m.get("window_start"),
            symbols_asked=decode_symbols(m.get("symbols_asked")),
        )
