"""As-of reads: `pitlake.Lake(path)` (docs/design.md §1, §8), the thin facade over the readers.

Every read validates its inputs before touching a file (bad input → INVALID_ARGUMENTS), never
returns a row with `known_at` after the cutoff, and answers with the `Result` envelope whose
status comes from the fetch ledger, not from a row count. `Lake.read(spec, **params)` answers
any queryable dataset by its spec's query model (`Dataset.query`), with the reader of its kind;
the typed methods below are that call with the model's parameters spelled out (names, order
and defaults are the model's: tests/serve/api/test_surfaces.py holds every surface to it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from datetime import date, datetime, timezone
from typing import Any

from pitlake.calendar import TradingCalendar
from pitlake.envelope import Result
from pitlake.errors import InvalidArgumentsError
from pitlake.lake.catalog import Catalog
from pitlake.lake.fs import ObjectFS, require_catalog_url
from pitlake.lake.store import LakeStore
from pitlake.pit import parse_cutoff
from pitlake.read import cutoff
from pitlake.read.answer import invalid, named_failures
from pitlake.read.engine import DuckReader
from pitlake.read.kept_key_order import kept_orders
from pitlake.read.kept_reports import KeptReports
from pitlake.read.readers import READERS
from pitlake.read.session_slices import SessionSlices
from pitlake.read.sql_shared import SharedDatabase
from pitlake.read.stored_calendar import lake_calendar
from pitlake.schemas import (
    Dataset,
    announcements,
    calendar,
    disclosure_schedule,
    dragon_tiger,
    financials,
    index_members,
    index_quotes,
    limit_pools,
    limit_prices,
    new_shares,
    news,
    quotes,
    securities,
    valuation,
)
from pitlake.schemas import get as get_schema

Day = str | date | None
Instant = str | date | datetime | None
Symbols = str | Sequence[str]


class Lake:
    """As-of reads over one lake directory.

    `pin_as_of` fixes the cutoff for every request (the runtime decides the date, not the
    model): later as-ofs are clamped to it and the answer says so. `clock` returns "now"
    (injectable for tests); `catalog_url` overrides the catalog (default: $PITLAKE_CATALOG_URL,
    else `<path>/catalog.db`).

    Reads never write: the catalog is opened read-only on the first read, and a path holding no
    pitlake catalog raises `pitlake.errors.NotALakeError` then (construction itself only reads
    the stored calendar, so it succeeds on any directory). The trading calendar is this lake's
    own (`trading_calendar`: the offline one, extended by the stored calendar dataset); opening
    a lake changes nothing in the process."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        catalog_url: str | None = None,
        catalog: Catalog | None = None,
        pin_as_of: str | date | datetime | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = LakeStore(path)
        self.root = self.store.root  # a Path, or an ObjectPath for an s3:// lake
        self._catalog_url = catalog_url
        self._catalog = catalog
        self._clock = clock or (lambda: datetime.now(timezone.utc))
        self.pinned_cutoff = parse_cutoff(pin_as_of) if pin_as_of is not None else None
        self.reader = DuckReader(self.store.fs.fs if isinstance(self.store.fs, ObjectFS) else None)
        self.sessions = SessionSlices()  # one session's stored rows, per file identity
        self.reports = KeptReports()  # statement files' indexes and rows, per file identity
        self.key_orders = kept_orders()  # their versions' key order, per set of files
        self.sql_database = SharedDatabase()  # Lake.sql's single SELECTs (sql_shared.py)
        self.trading_calendar: TradingCalendar = lake_calendar(self.store, self.reader)

    @property
    def catalog(self) -> Catalog:
        """The catalog, opened read-only on first use: a read never writes (no catalog.db
        is created). A directory without a pitlake catalog raises NotALakeError here."""
        if self._catalog is None:
            url = self._catalog_url
            if self.store.remote:
                url = require_catalog_url(url, self.root)
            self._catalog = Catalog(
                url, lake_root=None if self.store.remote else self.root, read_only=True
            )
        return self._catalog

    def close(self) -> None:
        self.reader.close()
        self.sql_database.close()

    def __enter__(self) -> Lake:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> datetime:
        now = self._clock()
        return now if now.tzinfo else now.replace(tzinfo=timezone.utc)

    def ask(self, as_of: Any, as_ingested: Any = None) -> cutoff.Ask:
        """This lake's cutoff for `as_of` (its pin and "now" applied); InvalidArgumentsError
        on a bad instant."""
        return cutoff.ask(as_of, as_ingested, pin=self.pinned_cutoff, now=self.now())

    # ================================================================ reads

    @named_failures
    def read(
        self, dataset: Dataset | str, /, *, as_ingested: Instant = None, **params: Any
    ) -> Result:
        """Any queryable dataset, by its spec (or name), with its query model's parameters;
        `as_ingested` also hides rows stored after that instant (an audit of what the lake
        held then)."""
        try:
            spec = get_schema(dataset) if isinstance(dataset, str) else dataset
            model = spec.query
            if model is None:
                raise InvalidArgumentsError(f"{spec.name} has no query of its own")
            unknown = sorted(set(params) - set(model.model_fields))
            if unknown:
                raise InvalidArgumentsError(
                    f"{spec.name} takes no {', '.join(unknown)}; its parameters: "
                    + ", ".join(model.model_fields)
                )
            query = model.model_construct(**params)  # unvalidated: the reader checks values
            ask = self.ask(query.as_of, as_ingested)
            run = READERS[spec.kind](self, spec, query, ask)
        except (InvalidArgumentsError, TypeError) as e:
            return invalid(e)
        with self.catalog.reading():  # the read's ledger queries share one connection
            return run()

    def quotes(
        self,
        symbols: Symbols,
        *,
        date: Day = None,
        start: Day = None,
        end: Day = None,
        as_of: Instant = None,
        adjust: str | None = "none",
        as_ingested: Instant = None,
    ) -> Result:
        """Daily bars (raw, or qfq/hfq computed from the factors known at the cutoff)."""
        return self.read(
            quotes.SCHEMA,
            symbols=symbols,
            date=date,
            start=start,
            end=end,
            as_of=as_of,
            adjust=adjust,
            as_ingested=as_ingested,
        )

    def valuation(
        self,
        symbols: Symbols,
        *,
        date: Day = None,
        start: Day = None,
        end: Day = None,
        as_of: Instant = None,
        as_ingested: Instant = None,
    ) -> Result:
        """Daily valuation (market cap, PE, PB, …) as known at the cutoff."""
        return self.read(
            valuation.SCHEMA,
            symbols=symbols,
            date=date,
            start=start,
            end=end,
            as_of=as_of,
            as_ingested=as_ingested,
        )

    def index_quotes(
        self,
        symbols: Symbols | None = None,
        *,
        date: Day = None,
        start: Day = None,
        end: Day = None,
        as_of: Instant = None,
        as_ingested: Instant = None,
    ) -> Result:
        """Daily bars of the main indices (codes like 000300.SH; all of them unless `symbols`
        is given)."""
        return self.read(
            index_quotes.SCHEMA,
            symbols=symbols,
            date=date,
            start=start,
            end=end,
            as_of=as_of,
            as_ingested=as_ingested,
        )

    def dragon_tiger(
        self,
        symbols: Symbols | None = None,
        *,
        date: Day = None,
        start: Day = None,
        end: Day = None,
        as_of: Instant = None,
        as_ingested: Instant = None,
    ) -> Result:
        """Dragon-tiger list entries: one session (`date`) or a range; whole market unless
        `symbols` is given."""
        return self.read(
            dragon_tiger.SCHEMA,
            symbols=symbols,
            date=date,
            start=start,
            end=end,
            as_of=as_of,
            as_ingested=as_ingested,
        )

    def financials(
        self,
        symbols: Symbols,
        *,
        as_of: Instant = None,
        statement: str | None = None,
        periods: str | date | Sequence[str | date] | None = None,
        latest_only: bool = False,
        as_ingested: Instant = None,
    ) -> Result:
        """Statement versions known at the cutoff: the latest version per (symbol, statement,
        report_period, report_type); `latest_only` keeps the greatest report_period per
        (symbol, statement, report_type)."""
        return self.read(
            financials.SCHEMA,
            symbols=symbols,
            as_of=as_of,
            statement=statement,
            periods=periods,
            latest_only=latest_only,
            as_ingested=as_ingested,
        )

    def news(
        self,
        symbols: Symbols | None = None,
        *,
        date: Day = None,
        start: Day = None,
        end: Day = None,
        as_of: Instant = None,
        lookback_days: int | None = None,
        limit: int | None = None,
        as_ingested: Instant = None,
    ) -> Result:
        """News public in the Beijing days [start, end] (default: the `lookback_days`, 7, up
        to the cutoff's day), newest first."""
        return self.read(
            news.SCHEMA,
            symbols=symbols,
            date=date,
            start=start,
            end=end,
            as_of=as_of,
            lookback_days=lookback_days,
            limit=limit,
            as_ingested=as_ingested,
        )

    def calendar(
        self, *, date: Day = None, start: Day = None, end: Day = None, as_of: Instant = None
    ) -> Result:
        """XSHG days in [start, end] (default: the cutoff's day) with is_open."""
        return self.read(calendar.SCHEMA, date=date, start=start, end=end, as_of=as_of)

    def announcements(
        self,
        symbols: Symbols | None = None,
        *,
        date: Day = None,
        start: Day = None,
        end: Day = None,
        as_of: Instant = None,
        lookback_days: int | None = None,
        limit: int | None = None,
        as_ingested: Instant = None,
    ) -> Result:
        """Company announcements public in the Beijing days [start, end] (default: the
        `lookback_days`, 7, up to the cutoff's day), newest first; whole market unless
        `symbols` is given."""
        return self.read(
            announcements.SCHEMA,
            symbols=symbols,
            date=date,
            start=start,
            end=end,
            as_of=as_of,
            lookback_days=lookback_days,
            limit=limit,
            as_ingested=as_ingested,
        )

    def disclosure_schedule(
        self,
        symbols: Symbols | None = None,
        *,
        date: Day = None,
        start: Day = None,
        end: Day = None,
        as_of: Instant = None,
        report_period: str | None = None,
        as_ingested: Instant = None,
    ) -> Result:
        """Which companies planned to publish a periodic report in the Beijing days [start,
        end] (default: the cutoff's day and the 30 after it), as known at the cutoff: the
        latest schedule of each (symbol, report_period) public by then."""
        return self.read(
            disclosure_schedule.SCHEMA,
            symbols=symbols,
            date=date,
            start=start,
            end=end,
            as_of=as_of,
            report_period=report_period,
            as_ingested=as_ingested,
        )

    def new_shares(
        self,
        symbols: Symbols | None = None,
        *,
        date: Day = None,
        start: Day = None,
        end: Day = None,
        as_of: Instant = None,
        as_ingested: Instant = None,
    ) -> Result:
        """New shares (IPOs) whose subscription day falls in the Beijing days [start, end]
        (default: the cutoff's day and the 30 after it), each with its latest terms public
        by the cutoff: issue price (元), listing day, share counts."""
        return self.read(
            new_shares.SCHEMA,
            symbols=symbols,
            date=date,
            start=start,
            end=end,
            as_of=as_of,
            as_ingested=as_ingested,
        )

    def universe(
        self,
        as_of: Instant = None,
        *,
        board: str | None = None,
        include_st: bool = True,
        include_suspended: bool = True,
        as_ingested: Instant = None,
    ) -> Result:
        """Every A-share listed at the cutoff (delisted companies until their delisting), with
        its name, board, exchange, list_date, is_st and is_suspended that Beijing day, from the
        securities rows known at the cutoff. `as_of` may be positional: universe("2025-06-03")."""
        return self.read(
            securities.SCHEMA,
            as_of=as_of,
            board=board,
            include_st=include_st,
            include_suspended=include_suspended,
            as_ingested=as_ingested,
        )

    # ================================================================ what is in the lake

    @named_failures
    def datasets(self, as_of: Instant = None, *, as_ingested: Instant = None) -> Result:
        """The catalogue (pitlake.read.catalogue): every dataset with its columns (types,
        units), key, known-at rule and bases, vendors and default chain, load rules, and
        what this lake holds of it as of the cutoff (rows, first and last date, the last
        successful fetch recorded by then). `as_of` may be positional: datasets("2025-06-01")."""
        from pitlake.read import catalogue

        try:
            ask = self.ask(as_of, as_ingested)
        except (InvalidArgumentsError, TypeError) as e:
            return invalid(e)
        with self.catalog.reading():
            return catalogue.answer(self, ask)

    @named_failures
    def runs(self, as_of: Instant = None, *, limit: int = 20) -> Result:
        """The latest `limit` ingest runs started by the cutoff, newest first, each as it
        stood then (pitlake.read.runs): one that ended after the cutoff is RUNNING without
        its end; a RUNNING run whose process is gone is ABANDONED, judged only when the
        cutoff is now (no as-of, no pin)."""
        from pitlake.read import runs

        try:
            ask = self.ask(as_of)
            current = as_of is None and not ask.pinned
            return runs.answer(self, ask, limit=limit, current=current)
        except (InvalidArgumentsError, TypeError) as e:
            return invalid(e)

    # ================================================================ point-in-time SQL

    def duckdb(self, as_of: Instant = None, *, as_ingested: Instant = None) -> Any:
        """A DuckDB connection whose views (quotes, financials, …, quotes_qfq) hold exactly
        what was public at the cutoff, with file access off (`pitlake.read.sql`). A pinned
        Lake clamps the cutoff. The caller closes it."""
        from pitlake.read import sql

        return sql.open_for(self, as_of, as_ingested)

    def sql(
        self,
        query: str,
        as_of: Instant = None,
        *,
        as_ingested: Instant = None,
        timeout: float | None = None,
        max_rows: int | None = None,
        max_bytes: int | None = None,
        cancel: threading.Event | None = None,
    ) -> Result:
        """One SQL statement over the point-in-time views at the cutoff, answered as a Result
        (its rows an Arrow table: `.to_pandas()`, `.to_arrow()`). `timeout` (seconds),
        `max_rows` and `max_bytes` (of Arrow memory) override PITLAKE_SQL_TIMEOUT /
        PITLAKE_SQL_MAX_ROWS / PITLAKE_SQL_MAX_BYTES (sql_limits.py; 0 turns one off); setting
        `cancel` from another thread interrupts the statement (RATE_LIMITED)."""
        from pitlake.read import sql_answer

        _ = self.catalog  # no catalog: NotALakeError, as every read raises
        return sql_answer.answer(
            self,
            query,
            as_of,
            as_ingested,
            timeout=timeout,
            max_rows=max_rows,
            max_bytes=max_bytes,
            cancel=cancel,
        )

    def index_members(
        self,
        index: str,
        *,
        date: Day = None,
        as_of: Instant = None,
        as_ingested: Instant = None,
    ) -> Result:
        """The constituents of one index (e.g. 000300.SH) in force on `date` (default: the
        cutoff's day): its newest snapshot dated on or before it that was public by the
        cutoff, with weights when the snapshot has them (`effective_trade_date` names it)."""
        return self.read(
            index_members.SCHEMA, index=index, date=date, as_of=as_of, as_ingested=as_ingested
        )

    # ================================================================ limit lists (#18)

    def limit_prices(
        self,
        symbols: Symbols | None = None,
        *,
        date: Day = None,
        start: Day = None,
        end: Day = None,
        as_of: Instant = None,
        as_ingested: Instant = None,
    ) -> Result:
        """Each session's limit-up / limit-down prices (published about 08:40 Beijing before
        the open; the whole market unless `symbols` is given)."""
        return self.read(
            limit_prices.SCHEMA,
            symbols=symbols,
            date=date,
            start=start,
            end=end,
            as_of=as_of,
            as_ingested=as_ingested,
        )

    def limit_pools(
        self,
        symbols: Symbols | None = None,
        *,
        date: Day = None,
        start: Day = None,
        end: Day = None,
        as_of: Instant = None,
        as_ingested: Instant = None,
    ) -> Result:
        """The vendors' own limit-up / limit-down / broken-board lists (`pool`), ST stocks
        left out by the vendors; known at the end of the session's day."""
        return self.read(
            limit_pools.SCHEMA,
            symbols=symbols,
            date=date,
            start=start,
            end=end,
            as_of=as_of,
            as_ingested=as_ingested,
        )

    # ================================================================ the market, derived (#18)

    @named_failures
    def market(self, date: Day = None, *, as_of: Instant = None) -> Result:
        """One session's breadth (advancers, decliners, unchanged, turnover in CNY) and the
        sizes of its limit pools and ladder, derived from the bars known at the cutoff
        (pitlake.read.market)."""
        from pitlake.read import market

        return market.overview(self, date, as_of)

    @named_failures
    def limits(self, date: Day = None, *, kind: str = "up", as_of: Instant = None) -> Result:
        """One session's limit-up (`kind="up"`), limit-down ("down") or broken-board
        ("broken") pool derived from the bars known at the cutoff, each code with its
        consecutive-limit count; meta.ladder maps each height to its codes."""
        from pitlake.read import market

        return market.pools(self, date, kind=kind, as_of=as_of)

    # ================================================================ walk-forward panels (#29)

    @named_failures
    def panel(
        self,
        fields: Sequence[str] | str,
        start: Day,
        end: Day,
        *,
        universe: str | Sequence[str] = "all",
        at: str = "15:00",
        as_of: Instant = None,
        provenance: bool = False,
        as_ingested: Instant = None,
    ) -> Result:
        """One row per (session D in [start, end], symbol in D's universe as known at D's
        cutoff — D at `at`, Beijing; "open", "close", "eod" name 09:30, 15:00, 23:59:59.999999;
        capped by `as_of`): bars, valuation and statement line items (`x`, `x_q`, `x_ttm`,
        `x_yoy`) each from the versions known at that cutoff (pitlake.read.panel).
        `universe`: "all" (survivorship-free), an index code (its members on D) or symbols;
        `provenance` adds each statement's report period and known_at used; `as_ingested`
        hides every row stored after that instant, as in the single-instant reads (the lake as
        it was on that day)."""
        from pitlake.read.panel import panel

        return panel(
            self,
            fields,
            start,
            end,
            universe=universe,
            at=at,
            as_of=as_of,
            provenance=provenance,
            as_ingested=as_ingested,
        )
