"""As-of reads: `pitlake.Lake(path)` (docs/design.md §1, §8).

Every read validates its inputs before touching a file (bad input → INVALID_ARGUMENTS), never
returns a row with `known_at` after the cutoff, and answers with the `Result` envelope whose
status comes from the fetch ledger, not from a row count.

Dates, for trade-dated datasets (quotes, valuation, dragon_tiger):
- the *target* session is the latest session at or before min(requested end, cutoff date);
- a single-date request (no start, or start == end) reads the target session only; a range
  reads [start, min(end, cutoff date)];
- a target session with no rows is never silently replaced by an older one: the answer carries
  the ledger's status for it (NOT_READY when it is not public yet at the cutoff) and no rows for
  that scope, with `effective_trade_date` naming the latest older session that has data
  (`date_status` STALE).
- adjusted quotes whose factors do not cover every requested row are NOT_READY with no rows for
  that symbol (never unadjusted prices under an adjusted label).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pitlake.calendar import FIRST_SESSION, XSHG, to_date
from pitlake.envelope import Result
from pitlake.errors import InvalidArgumentsError, LakeCorruptError
from pitlake.lake.adjust import ADJUST_MODES, adjust_prices
from pitlake.lake.catalog import WHOLE_MARKET, Catalog, LedgerEntry
from pitlake.lake.fs import ObjectFS, require_catalog_url
from pitlake.lake.session_slices import SessionSlices
from pitlake.lake.sql import DuckReader, Params, col, hidden, visible
from pitlake.lake.status import (
    BENIGN_ANSWER,
    Gap,
    LedgerView,
    combine,
    coverage,
    describe_coverage,
    describe_gaps,
    fetched_sessions,
    gaps_meta,
    ledger_scopes,
    read_ledger,
    status_of_entry,
    vendor_trace,
    whole_market_scopes,
)
from pitlake.lake.store import LakeStore
from pitlake.lake.stored_calendar import extend_calendar_from_lake
from pitlake.pit import Rule, beijing_day_window, is_quarter_end, iso_beijing, parse_cutoff
from pitlake.schemas import BITEMPORAL_COLUMNS, Dataset
from pitlake.schemas import get as get_schema
from pitlake.schemas.financials import STATEMENTS
from pitlake.statuses import DateStatus, ResultStatus
from pitlake.symbols import canonical_many

DEFAULT_NEWS_LOOKBACK_DAYS = 7
MAX_NEWS_LOOKBACK_DAYS = 366
MAX_CALENDAR_DAYS = 3660
MAX_SYMBOLS = 6000
# Before a range whose sessions all failed, how many successful ledger dates are checked (newest
# first) for the effective session before settling on the latest date with rows.
LOOKBACK_CHECKS = 8
# Reads bounded by symbols × calendar days up to this pick the newest version per key by a sorted scan
# (see Lake._read_latest_small); larger ones group in DuckDB.
SMALL_READ_CELLS = 20_000
# Reads of at most this many symbols touch a row group or two per year: one DuckDB thread.
POINT_READ_SYMBOLS = 4


@dataclass(frozen=True)
class Ask:
    """The validated instants of one request."""

    cutoff: datetime  # aware, Beijing
    as_ingested: datetime | None
    pinned: bool
    notes: tuple[str, ...] = ()

    @property
    def as_of(self) -> str:
        return iso_beijing(self.cutoff)  # type: ignore[return-value]


@dataclass(frozen=True)
class Window:
    """Which sessions a trade-dated request is about."""

    requested_end: date
    target: date  # latest session ≤ min(requested end, cutoff date)
    lo: date
    hi: date
    sessions: list[date] = field(default_factory=list)  # sessions expected to hold data
    single: bool = True
    after_cutoff: bool = False  # a range that starts after the cutoff date


def _known_at_floors(schema: Dataset, dates: Iterable[date]) -> dict[date, datetime]:
    """The earliest instant a row of this dataset about each date can be public (its rule),
    from one call of the rule over the dates not seen before (a call per date cost ~1 ms: a
    five-year gap analysis spent a second here). A rule that depends on the date alone (not
    on when the row was fetched) is remembered per date."""
    assert schema.date_column is not None
    days = sorted(set(dates))
    if not days:
        return {}
    cache = _FLOORS.get(schema.known_at) if _date_only_rule(schema) else None
    todo = days if cache is None else [d for d in days if d not in cache]
    computed: dict[date, datetime] = {}
    if todo:
        frame = pd.DataFrame({schema.date_column: todo})
        known, _ = schema.known_at(frame, datetime.now(timezone.utc))
        computed = dict(zip(todo, known.dt.to_pydatetime(), strict=True))
        if cache is not None:
            cache.update(computed)
    if cache is None:
        return computed
    return {d: cache[d] for d in days}


# Per known-at rule: whether it depends on the date alone, and its floors by date.
_DATE_ONLY: dict[Rule, bool] = {}
_FLOORS: dict[Rule, dict[date, datetime]] = {}


def _date_only_rule(schema: Dataset) -> bool:
    """Whether the rule dates a row from its date alone: the same floor for two fetch
    instants a year apart (checked once per rule)."""
    name = schema.known_at
    if name not in _DATE_ONLY:
        assert schema.date_column is not None
        frame = pd.DataFrame({schema.date_column: [date(2020, 6, 1)]})
        a, _ = schema.known_at(frame, datetime(2020, 6, 2, tzinfo=timezone.utc))
        b, _ = schema.known_at(frame, datetime(2021, 6, 2, tzinfo=timezone.utc))
        _DATE_ONLY[name] = bool((a == b).all())
        _FLOORS.setdefault(name, {})
    return _DATE_ONLY[name]


def _years(lo: date, hi: date) -> list[str]:
    return [str(y) for y in range(lo.year, hi.year + 1)]


def _months(lo: date, hi: date) -> list[str]:
    out, y, m = [], lo.year, lo.month
    while (y, m) <= (hi.year, hi.month):
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def _empty_table(schema: Dataset) -> pa.Table:
    return schema.arrow_schema.empty_table()


def _calendar_table(rows: list[dict[str, Any]]) -> pa.Table:
    """Calendar rows (built as JSON rows) in their columnar types."""
    return pa.table(
        {
            "date": pa.array([date.fromisoformat(r["date"]) for r in rows], pa.date32()),
            "is_open": pa.array([r["is_open"] for r in rows], pa.bool_()),
            "source": pa.array([r["source"] for r in rows], pa.string()),
        }
    )


def _invalid(e: Exception, **kw: Any) -> Result:
    return Result.invalid(str(e), **kw)


_QUOTED = re.compile(r"""['"]([^'"]+)['"]""")


def _failed_file(message: str, root: object) -> str:
    """The stored file a DuckDB error names (a quoted Parquet path, or a quoted path inside
    the lake), else the lake itself."""
    quoted = _QUOTED.findall(message)
    for candidate in quoted:
        if candidate.endswith(".parquet"):
            return candidate
    base = str(root)
    for candidate in quoted:
        if candidate.startswith(base):
            return candidate
    return base


def _named_failures(read: Callable[..., Result]) -> Callable[..., Result]:
    """A public read: a stored file the engine cannot read raises `LakeCorruptError` naming
    it, in one line, never a raw DuckDB error (the surfaces print it; HTTP answers 503)."""

    @functools.wraps(read)
    def wrapper(self: Lake, *args: Any, **kwargs: Any) -> Result:
        try:
            return read(self, *args, **kwargs)
        except duckdb.Error as e:
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            path = _failed_file(str(e), self.root)
            raise LakeCorruptError(f"unreadable lake file {path}: {first}", path=path) from e

    return wrapper


class Lake:
    """As-of reads over one lake directory.

    `pin_as_of` fixes the cutoff for every request (the runtime decides the date, not the
    model): later as-ofs are clamped to it and the answer says so. `clock` returns "now"
    (injectable for tests); `catalog_url` overrides the catalog (default: $PITLAKE_CATALOG_URL,
    else `<path>/catalog.db`).

    Reads never write: the catalog is opened read-only on the first read, and a path holding no
    pitlake catalog raises `pitlake.errors.NotALakeError` then (construction itself only reads
    the stored calendar, so it succeeds on any directory)."""

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
        self._reader = DuckReader(self.store.fs.fs if isinstance(self.store.fs, ObjectFS) else None)
        self._sessions = SessionSlices()  # one session's stored rows, per file identity
        extend_calendar_from_lake(self.store)  # sessions past the offline calendar, if stored

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
        self._reader.close()

    def __enter__(self) -> Lake:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ================================================================ public reads

    @_named_failures
    def quotes(
        self,
        symbols: str | Sequence[str],
        start: str | date | None = None,
        end: str | date | None = None,
        as_of: str | date | datetime | None = None,
        adjust: str | None = "none",
        *,
        as_ingested: str | date | datetime | None = None,
    ) -> Result:
        """Daily bars (raw, or qfq/hfq computed from the factors known at the cutoff)."""
        try:
            ask = self._ask(as_of, as_ingested)
            syms = self._symbols(symbols, required=True)
            mode = (adjust or "none").strip().lower() if isinstance(adjust, str | None) else adjust
            if mode not in ADJUST_MODES:
                raise InvalidArgumentsError(
                    f"invalid adjust {adjust!r}: expected one of {', '.join(ADJUST_MODES)}"
                )
            win = self._window(start, end, ask)
        except (InvalidArgumentsError, TypeError) as e:
            return _invalid(e)
        return self._trade_dated("quotes", syms, win, ask, adjust=mode)

    @_named_failures
    def valuation(
        self,
        symbols: str | Sequence[str],
        start: str | date | None = None,
        end: str | date | None = None,
        as_of: str | date | datetime | None = None,
        *,
        as_ingested: str | date | datetime | None = None,
    ) -> Result:
        """Daily valuation (market cap, PE, PB, …) as known at the cutoff."""
        try:
            ask = self._ask(as_of, as_ingested)
            syms = self._symbols(symbols, required=True)
            win = self._window(start, end, ask)
        except (InvalidArgumentsError, TypeError) as e:
            return _invalid(e)
        return self._trade_dated("valuation", syms, win, ask)

    @_named_failures
    def dragon_tiger(
        self,
        date: str | date | None = None,
        start: str | date | None = None,
        end: str | date | None = None,
        symbols: str | Sequence[str] | None = None,
        as_of: str | date | datetime | None = None,
        *,
        as_ingested: str | date | datetime | None = None,
    ) -> Result:
        """Dragon-tiger list entries: one session (`date`) or a range; whole market unless
        `symbols` is given."""
        try:
            ask = self._ask(as_of, as_ingested)
            syms = self._symbols(symbols, required=False)
            if date is not None and (start is not None or end is not None):
                raise InvalidArgumentsError("give either date, or start/end — not both")
            win = self._window(start, end if date is None else date, ask)
        except (InvalidArgumentsError, TypeError) as e:
            return _invalid(e)
        return self._trade_dated("dragon_tiger", syms or None, win, ask)

    @_named_failures
    def financials(
        self,
        symbols: str | Sequence[str],
        as_of: str | date | datetime | None = None,
        statement: str | None = None,
        periods: str | date | Sequence[str | date] | None = None,
        latest_only: bool = False,
        *,
        as_ingested: str | date | datetime | None = None,
    ) -> Result:
        """Statement versions known at the cutoff: the latest version per (symbol, statement,
        report_period, report_type); `latest_only` keeps the greatest report_period per
        (symbol, statement, report_type) — a late restatement of an old period never displaces
        a newer period."""
        try:
            ask = self._ask(as_of, as_ingested)
            syms = self._symbols(symbols, required=True)
            if statement is not None and statement not in STATEMENTS:
                raise InvalidArgumentsError(
                    f"invalid statement {statement!r}: expected one of {', '.join(STATEMENTS)}"
                )
            wanted = self._periods(periods)
            if not isinstance(latest_only, bool):
                raise InvalidArgumentsError("latest_only must be true or false")
        except (InvalidArgumentsError, TypeError) as e:
            return _invalid(e)
        return self._financials(syms, ask, statement, wanted, latest_only)

    @_named_failures
    def news(
        self,
        symbols: str | Sequence[str] | None = None,
        start: str | date | None = None,
        end: str | date | None = None,
        as_of: str | date | datetime | None = None,
        lookback_days: int | None = None,
        *,
        as_ingested: str | date | datetime | None = None,
        limit: int | None = None,
    ) -> Result:
        """News public in the Beijing days [start, end] (default: the `lookback_days`, 7, up to
        the cutoff's day), newest first. An item without a publish time is known from when we
        first saw it, so it never shows in an answer about an earlier time."""
        try:
            ask = self._ask(as_of, as_ingested)
            syms = self._symbols(symbols, required=False)
            end_d = to_date(end) if end is not None else ask.cutoff.date()
            if start is not None and lookback_days is not None:
                raise InvalidArgumentsError("give either start or lookback_days — not both")
            if lookback_days is not None and (
                isinstance(lookback_days, bool)
                or not isinstance(lookback_days, int)
                or not 1 <= lookback_days <= MAX_NEWS_LOOKBACK_DAYS
            ):
                raise InvalidArgumentsError(
                    f"invalid lookback_days {lookback_days!r}: expected 1..{MAX_NEWS_LOOKBACK_DAYS}"
                )
            days = lookback_days or DEFAULT_NEWS_LOOKBACK_DAYS
            start_d = to_date(start) if start is not None else end_d - timedelta(days=days - 1)
            lo, hi = beijing_day_window(start_d, end_d)
            if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
                raise InvalidArgumentsError("limit must be a positive integer")
            if limit is not None and limit < 1:
                raise InvalidArgumentsError("limit must be a positive integer")
        except (InvalidArgumentsError, TypeError) as e:
            return _invalid(e)
        return self._news(syms, start_d, end_d, lo, hi, ask, limit)

    @_named_failures
    def calendar(
        self,
        start: str | date | None = None,
        end: str | date | None = None,
        as_of: str | date | datetime | None = None,
    ) -> Result:
        """XSHG days in [start, end] (default: the cutoff's day) with is_open: the offline
        exchange calendar where it reaches, the stored vendor calendar beyond it."""
        try:
            ask = self._ask(as_of, None)
            end_d = to_date(end) if end is not None else ask.cutoff.date()
            start_d = to_date(start) if start is not None else end_d
            if start_d > end_d:
                raise InvalidArgumentsError(f"start {start_d} is after end {end_d}")
            if (end_d - start_d).days > MAX_CALENDAR_DAYS:
                raise InvalidArgumentsError(f"range longer than {MAX_CALENDAR_DAYS} days")
        except (InvalidArgumentsError, TypeError) as e:
            return _invalid(e)
        return self._calendar(start_d, end_d, ask)

    # ================================================================ validation

    def _now(self) -> datetime:
        now = self._clock()
        return now if now.tzinfo else now.replace(tzinfo=timezone.utc)

    def _ask(self, as_of: Any, as_ingested: Any) -> Ask:
        now = parse_cutoff(self._now())
        cutoff = parse_cutoff(as_of, now=now)
        notes: list[str] = []
        if self.pinned_cutoff is not None:
            if as_of is None:
                cutoff = self.pinned_cutoff
            elif cutoff > self.pinned_cutoff:
                notes.append(
                    f"as_of {iso_beijing(cutoff)} is after this API's pinned as-of; "
                    f"clamped to {iso_beijing(self.pinned_cutoff)}."
                )
                cutoff = self.pinned_cutoff
        if cutoff > now:
            if cutoff.date() > now.date():  # "as of today" quietly means "as of now"
                notes.append(
                    f"as_of {iso_beijing(cutoff)} is in the future; answered as of now "
                    f"({iso_beijing(now)})."
                )
            cutoff = now
        ingested = parse_cutoff(as_ingested, now=now) if as_ingested is not None else None
        return Ask(cutoff, ingested, self.pinned_cutoff is not None, tuple(notes))

    @staticmethod
    def _symbols(symbols: Any, *, required: bool) -> list[str]:
        if symbols is None or (isinstance(symbols, str) and not symbols.strip()):
            if required:
                raise InvalidArgumentsError("give at least one symbol, e.g. 600519.SH")
            return []
        if not isinstance(symbols, str | list | tuple):
            raise InvalidArgumentsError(
                f"symbols must be a string or a list of strings, got {type(symbols).__name__}"
            )
        out = canonical_many(symbols)
        if required and not out:
            raise InvalidArgumentsError("give at least one symbol, e.g. 600519.SH")
        if len(out) > MAX_SYMBOLS:
            raise InvalidArgumentsError(f"too many symbols ({len(out)} > {MAX_SYMBOLS})")
        return out

    @staticmethod
    def _periods(periods: Any) -> list[date] | None:
        if periods is None:
            return None
        items = (
            [periods]
            if isinstance(periods, str | date)
            else (list(periods) if isinstance(periods, list | tuple) else None)
        )
        if items is None:
            raise InvalidArgumentsError("periods must be a date or a list of dates")
        out: list[date] = []
        for p in items:
            d = to_date(p)
            if not is_quarter_end(d):
                raise InvalidArgumentsError(f"report period {d} is not a quarter end")
            if d not in out:
                out.append(d)
        if not out:
            raise InvalidArgumentsError("periods is empty")
        return out

    @staticmethod
    def _window(start: Any, end: Any, ask: Ask) -> Window:
        end_d = to_date(end) if end is not None else ask.cutoff.date()
        start_d = to_date(start) if start is not None else None
        if start_d is not None and start_d > end_d:
            raise InvalidArgumentsError(f"start {start_d} is after end {end_d}")
        last = min(end_d, ask.cutoff.date())
        if start_d is not None and start_d < FIRST_SESSION:
            raise InvalidArgumentsError(f"start {start_d} is before the first XSHG session")
        target = XSHG.session_on_or_before(last)
        if start_d is None or start_d == end_d:
            return Window(end_d, target, target, target, [target], single=True)
        if start_d > last:
            return Window(end_d, target, start_d, end_d, [], single=False, after_cutoff=True)
        return Window(end_d, target, start_d, last, XSHG.sessions_between(start_d, last), False)

    # ================================================================ trade-dated datasets

    def _read_latest(
        self,
        schema: Dataset,
        symbols: list[str] | None,
        lo: date,
        hi: date,
        ask: Ask,
    ) -> tuple[pa.Table, set[tuple[str, date]] | None]:
        """The newest visible version per key, and (for a symbol-bounded read) the (symbol,
        date) pairs whose stored rows the cutoff hides, from the same scan; None: not known
        (ask `_hidden_pairs`)."""
        date_col = schema.date_column
        assert date_col is not None
        p = Params()
        where = [f"{col(date_col)} BETWEEN {p.add(lo)} AND {p.add(hi)}"]
        if symbols:
            where.append(f"{col('symbol')} IN {p.in_list(symbols)}")
        files = self.store.files(schema.name, _years(lo, hi))
        if symbols and len(symbols) * ((hi - lo).days + 1) <= SMALL_READ_CELLS and files:
            seen = " AND ".join(visible(p, ask.cutoff, ask.as_ingested))
            point = len(symbols) <= POINT_READ_SYMBOLS
            kept = None if point or lo != hi else self._session_slice(schema, files, lo)
            if kept is not None:
                return self._read_latest_kept(schema, kept, symbols, ask)
            return self._read_latest_small(schema, files, where, seen, p, point=point)
        where += visible(p, ask.cutoff, ask.as_ingested)
        table = self._reader.latest_versions(schema, files, where, p)
        if table is None or table.num_rows == 0:
            return _empty_table(schema), (set() if not files else None)
        return table, None

    def _read_latest_small(
        self,
        schema: Dataset,
        files: list[Any],
        where: list[str],
        seen: str,
        p: Params,
        *,
        point: bool,
    ) -> tuple[pa.Table, set[tuple[str, date]]]:
        """The same rows as `DuckReader.latest_versions` for a read bounded by symbols × days
        (one symbol's year, say): a plain filtered scan in key order, and the newest version
        per key kept by comparing neighbours, which skips the GROUP BY over row structs and
        the pandas round trip (together about a third of a one-year read). Ties on known_at
        go to the later ingestion. The scan also returns the rows `seen` (the visibility
        condition) rejects, as the (symbol, date) pairs they hide: no second query for them."""
        date_col = schema.date_column
        assert date_col is not None
        order = ", ".join(col(c) for c in [*schema.key, "known_at", "ingested_at"])
        sql = (
            f"SELECT *, ({seen}) AS __visible FROM {self._reader.source(files, p)} "
            f"WHERE {' AND '.join(where)} ORDER BY {order}"
        )
        scanned = self._reader.table(sql, p, point=point)
        shown = scanned.column("__visible")
        hidden_rows = scanned.filter(pc.invert(shown))
        hidden_pairs = set(
            zip(
                hidden_rows.column("symbol").to_pylist(),
                hidden_rows.column(date_col).to_pylist(),
                strict=True,
            )
        )
        table = scanned.filter(shown).drop_columns(["__visible"])
        return self._newest_per_key(schema, table), hidden_pairs

    def _read_latest_kept(
        self, schema: Dataset, kept: pa.Table, symbols: list[str], ask: Ask
    ) -> tuple[pa.Table, set[tuple[str, date]]]:
        """`_read_latest_small` over one session's kept rows (`_session_slice`), in Arrow: the
        symbols asked, split by the same visibility rule as `visible()` (known_at <= cutoff,
        and ingested_at <= as_ingested when given; a NULL instant is neither shown nor
        hidden, as in SQL), sorted by key then version, the newest version per key kept.
        A statement over the registered table cost ~20 ms of planning for a few rows."""
        date_col = schema.date_column
        assert date_col is not None
        asked = kept.filter(pc.is_in(kept.column("symbol"), value_set=pa.array(symbols)))

        def at_or_before(name: str, instant: datetime) -> pa.ChunkedArray:
            column = asked.column(name)
            return pc.less_equal(column, pa.scalar(instant, type=column.type))

        shown = at_or_before("known_at", ask.cutoff)
        if ask.as_ingested is not None:
            shown = pc.and_kleene(shown, at_or_before("ingested_at", ask.as_ingested))
        hidden_rows = asked.filter(pc.invert(shown))
        hidden_pairs = set(
            zip(
                hidden_rows.column("symbol").to_pylist(),
                hidden_rows.column(date_col).to_pylist(),
                strict=True,
            )
        )
        table = asked.filter(shown)
        if table.num_rows > 1:
            order = [*schema.key, "known_at", "ingested_at"]
            table = table.sort_by([(c, "ascending") for c in dict.fromkeys(order)])
        return self._newest_per_key(schema, table), hidden_pairs

    def _session_slice(self, schema: Dataset, files: list[Any], day: date) -> pa.Table | None:
        """Every stored version of `day` in these files (no cutoff applied), kept per file
        identity (session_slices.py); None for files without a local identity."""
        date_col = schema.date_column
        assert date_col is not None

        def read() -> pa.Table:
            p = Params()
            sql = (
                f"SELECT * FROM {self._reader.source(files, p)} "
                f"WHERE {col(date_col)} = {p.add(day)}"
            )
            return self._reader.table(sql, p)

        return self._sessions.get(schema.name, day, files, read)

    @staticmethod
    def _newest_per_key(schema: Dataset, table: pa.Table) -> pa.Table:
        """Rows sorted by key then version: the last version of each key."""
        if table.num_rows < 2:
            return table if table.num_rows else _empty_table(schema)
        same_as_next = None
        for k in schema.key:
            keys = table.column(k)
            eq = pc.fill_null(pc.equal(keys.slice(0, len(keys) - 1), keys.slice(1)), False)
            same_as_next = eq if same_as_next is None else pc.and_(same_as_next, eq)
        if not pc.any(same_as_next).as_py():
            return table
        keep = pa.concat_arrays([pc.invert(same_as_next).combine_chunks(), pa.array([True])])
        return table.filter(keep)

    def _hidden_pairs(
        self, schema: Dataset, symbols: list[str] | None, lo: date, hi: date, ask: Ask
    ) -> set[tuple[str, date]]:
        """(scope, date) pairs with stored rows that the cutoff hides: "not public yet"."""
        date_col = schema.date_column
        assert date_col is not None
        files = self.store.files(schema.name, _years(lo, hi))
        if not files:
            return set()
        p = Params()
        where = [f"{col(date_col)} BETWEEN {p.add(lo)} AND {p.add(hi)}"]
        if symbols:
            where.append(f"{col('symbol')} IN {p.in_list(symbols)}")
        where.append(hidden(p, ask.cutoff, ask.as_ingested))
        scope = col("symbol") if symbols else p.add(WHOLE_MARKET)
        sql = (
            f"SELECT DISTINCT {scope} AS scope, {col(date_col)} AS d "
            f"FROM {self._reader.source(files, p)} WHERE {' AND '.join(where)}"
        )
        # a few symbols touch a row group per year: the one-thread database, as for the read
        point = bool(symbols) and len(symbols) <= POINT_READ_SYMBOLS  # type: ignore[arg-type]
        found = self._reader.table(sql, p, point=point)
        return set(
            zip(found.column("scope").to_pylist(), found.column("d").to_pylist(), strict=True)
        )

    def _latest_date(
        self, schema: Dataset, symbols: list[str] | None, on_or_before: date, ask: Ask
    ) -> date | None:
        """The latest date ≤ on_or_before holding rows visible at the cutoff (newest year
        partition first, so the usual answer reads one file)."""
        date_col = schema.date_column
        assert date_col is not None
        parts = [
            part
            for part in self.store.list_partitions(schema.name)
            if part.value.isdigit() and int(part.value) <= on_or_before.year
        ]
        for part in sorted(parts, key=lambda x: int(x.value), reverse=True):
            p = Params()
            where = [f"{col(date_col)} <= {p.add(on_or_before)}"]
            where += visible(p, ask.cutoff, ask.as_ingested)
            if symbols:
                where.append(f"{col('symbol')} IN {p.in_list(symbols)}")
            sql = (
                f"SELECT max({col(date_col)}) FROM {self._reader.source([part.path], p)} "
                f"WHERE {' AND '.join(where)}"
            )
            found = self._reader.rows(sql, p)[0][0]
            if found is not None:
                return found
        return None

    def _gaps(
        self,
        schema: Dataset,
        symbols: list[str] | None,
        missing: list[tuple[str, date]],
        ledger: LedgerView,
        ask: Ask,
        sessions: Sequence[date] | None = None,
        hidden_pairs: set[tuple[str, date]] | None = None,
    ) -> list[Gap]:
        """Why each missing (scope, session) has no rows, as runs: consecutive sessions of one
        scope missing for the same reason make one Gap (first…last, how many). `missing` is
        ordered by scope, then session; `sessions` (the window's, in order) says which missing
        sessions are consecutive. The walk does a few dictionary look-ups per session, so a
        symbol with no rows over decades costs milliseconds (issue 13 item 11)."""
        if not missing:
            return []
        dates = [d for _, d in missing]
        if hidden_pairs is None:
            hidden_pairs = self._hidden_pairs(schema, symbols, min(dates), max(dates), ask)
        not_public = self._not_public(schema, dates, ask)
        position = {d: i for i, d in enumerate(sessions if sessions is not None else dates)}
        reasons: dict[tuple[Any, ...], tuple[ResultStatus, str]] = {}
        runs: list[Gap] = []
        run: list[Any] = []  # scope, first, last, last position, key, count

        def close() -> None:
            scope, first, last, _, key, count = run
            status, reason = reasons[key]
            entry = ledger.lookup(last, scope)
            if key[0] == "floor":
                when = f"{first}" if first == last else f"{first}…{last}"
                reason = (
                    f"{schema.name} for {when} become public at {iso_beijing(not_public[last])}"
                    ", after the as-of"
                )
            runs.append(Gap(scope, first, status, reason, entry, last, count))

        for scope, d in missing:
            if d in not_public:
                key: tuple[Any, ...] = ("floor",)
                reasons[key] = (ResultStatus.NOT_READY, "")
            elif (scope, d) in hidden_pairs:
                key = ("hidden",)
                reasons[key] = (ResultStatus.NOT_READY, "stored, but public only after the as-of")
            else:
                found = ledger.status_key(d, scope)
                if found is None:
                    key = ("never",)
                    reasons[key] = (ResultStatus.UNKNOWN, "never fetched")
                else:
                    key = (*found, scope == WHOLE_MARKET)
                    if key not in reasons:
                        gap = self._ledger_gap(scope, d, ledger.lookup(d, scope))
                        reasons[key] = (gap.status, gap.reason)
            pos = position[d]
            if run and run[0] == scope and run[4] == key and run[3] == pos - 1:
                run[2], run[3], run[5] = d, pos, run[5] + 1
                continue
            if run:
                close()
            run = [scope, d, d, pos, key, 1]
        close()
        return runs

    @staticmethod
    def _not_public(schema: Dataset, dates: list[date], ask: Ask) -> dict[date, datetime]:
        """The dates whose rows become public only after the cutoff (their rule's floor), with
        that instant. A trade-dated rule dates a row within its session's day, and later
        sessions later, so only the last week before the cutoff is computed, plus the latest
        older date as a check that the older ones are public."""
        recent_from = ask.cutoff.date() - timedelta(days=7)
        recent = sorted({d for d in dates if d >= recent_from})
        older = [d for d in dates if d < recent_from]
        probe = [max(older)] if older else []
        floors = _known_at_floors(schema, [*probe, *recent])
        if probe and floors[probe[0]] > ask.cutoff:  # a rule dating rows later: check all
            floors = _known_at_floors(schema, dates)
        return {d: f for d, f in floors.items() if ask.cutoff < f}

    @staticmethod
    def _ledger_gap(scope: str, d: date | None, entry: LedgerEntry | None) -> Gap:
        if entry is None:
            return Gap(scope, d, ResultStatus.UNKNOWN, "never fetched")
        status = status_of_entry(entry)
        if status is ResultStatus.NO_DATA:
            reason = (
                "not in the successful whole-market fetch"
                if entry.symbol == WHOLE_MARKET and scope != WHOLE_MARKET
                else "the fetch succeeded with no rows"
            )
        else:
            reason = f"last fetch {entry.status}" + (f": {entry.message}" if entry.message else "")
        return Gap(scope, d, status, reason, entry)

    def _trade_dated(
        self,
        dataset: str,
        symbols: list[str] | None,
        win: Window,
        ask: Ask,
        *,
        adjust: str = "none",
    ) -> Result:
        schema = get_schema(dataset)
        date_col = schema.date_column
        assert date_col is not None
        scopes = symbols or [WHOLE_MARKET]
        table, hidden_pairs = (
            self._read_latest(schema, symbols, win.lo, win.hi, ask)
            if win.sessions
            else (_empty_table(schema), None)
        )
        dates = table.column(date_col).to_pylist()
        if symbols:
            present = set(zip(table.column("symbol").to_pylist(), dates, strict=True))
        else:
            present = {(WHOLE_MARKET, d) for d in dates}
        missing = [(s, d) for s in scopes for d in win.sessions if (s, d) not in present]
        first = min([d for _, d in missing] + [win.target])
        ledger = read_ledger(self.catalog, dataset, first, win.target, ledger_scopes(scopes))
        gaps = self._gaps(schema, symbols, missing, ledger, ask, win.sessions, hidden_pairs)
        # The effective session: the latest one fetched (rows, or a successful empty fetch),
        # at or before the range's end — wherever the range starts (status.py).
        fetched = fetched_sessions(win.sessions, len(scopes), gaps)
        if fetched:
            effective: date | None = fetched[-1]
        else:
            before = win.target if win.after_cutoff else win.lo - timedelta(days=1)
            effective = self._fetched_before(schema, symbols, scopes, before, ask)
        target_gaps = [g for g in gaps if g.date_key and g.date_key <= win.target <= g.until]  # type: ignore[operator]
        meta: dict[str, Any] = {}
        if adjust != "none" and symbols:
            adjusted, adjust_gaps, meta["adjust"] = self._adjusted(
                table.to_pandas(), symbols, ask, adjust
            )
            table = pa.Table.from_pandas(adjusted, preserve_index=False)
            gaps += adjust_gaps
        has_rows = table.num_rows > 0
        status = combine([g.status for g in gaps], has_rows)
        notes = list(ask.notes)
        if win.after_cutoff:
            status = ResultStatus.NOT_READY
            notes.append(
                f"The requested dates start after the as-of ({ask.as_of}); nothing about "
                "them was public then."
            )
        date_status = self._date_status(effective, win)
        target_status = combine([g.status for g in target_gaps], False)
        notes += self._date_notes(dataset, win, effective, date_status, target_status, ask)
        cover = coverage(fetched, ledger, scopes)
        whole_from_symbols = WHOLE_MARKET in scopes and isinstance(cover.get("symbols"), list)
        if gaps and status not in BENIGN_ANSWER:
            notes.append(describe_gaps(gaps))
        elif status is ResultStatus.NO_DATA:
            notes.append(f"The fetch for {win.target} succeeded with no rows for this request.")
        elif gaps:
            notes.append(self._benign_gaps_note(gaps))
        if whole_from_symbols or (gaps and status not in BENIGN_ANSWER and not win.after_cutoff):
            notes.append(describe_coverage(dataset, cover, scopes))
            meta["coverage"] = cover
        sort = [date_col, "symbol", *schema.key] if not symbols else ["symbol", date_col]
        if table.num_rows > 1:  # Arrow's sort is stable, as pandas' "stable" was
            table = table.sort_by([(c, "ascending") for c in dict.fromkeys(sort)])
        columns = [*schema.columns, *BITEMPORAL_COLUMNS]
        if adjust != "none":
            columns.append("adj_factor")
        target_entries = [ledger.lookup(win.target, s) for s in scopes]
        meta.update(
            self._meta(
                table,
                ask,
                [*target_entries, *(g.entry for g in gaps)],
                gaps=gaps,
                rows=len(table),
                view=ledger,
            )
        )
        return Result(
            status=status,
            requested_date=win.requested_end.isoformat(),
            effective_trade_date=effective.isoformat() if effective else None,
            date_status=date_status,
            as_of=ask.as_of,
            source=self._sources(table),
            message=" ".join(n for n in notes if n),
            table=table,
            columns=columns,
            meta=meta,
        )

    @staticmethod
    def _benign_gaps_note(gaps: list[Gap]) -> str:
        """Gaps that are all successful fetches without these rows (a suspension, a symbol
        not on the list), said once however many there are."""
        absent = sorted({g.symbol for g in gaps})
        dated = [g for g in gaps if g.date_key is not None]
        who = (
            "the whole market"
            if absent == [WHOLE_MARKET]
            else ", ".join(absent[:20]) + (" …" if len(absent) > 20 else "")
        )
        when = ""
        if dated:
            first = min(g.date_key for g in dated)  # type: ignore[type-var]
            last = max(g.until for g in dated)  # type: ignore[type-var]
            n = sum(g.sessions for g in dated)
            span = f"{first}" if first == last else f"{first}…{last}"
            when = f" on {n} session(s), {span}" if len(absent) == 1 else f", {span}"
        if absent == [WHOLE_MARKET]:
            return f"No rows{when}: those fetches succeeded with nothing in them."
        return f"No rows for {who}{when} (the fetch succeeded without them, e.g. a suspension)."

    def _fetched_before(
        self,
        schema: Dataset,
        symbols: list[str] | None,
        scopes: list[str],
        on_or_before: date,
        ask: Ask,
    ) -> date | None:
        """The latest session ≤ on_or_before that an answer could stand on (rows visible at
        the cutoff, or a successful empty fetch): the effective session of a range none of
        whose own sessions was fetched, the same as a longer range with the same end would
        find."""
        if on_or_before < FIRST_SESSION:
            return None
        with_rows = self._latest_date(schema, symbols, on_or_before, ask)
        after = with_rows + timedelta(days=1) if with_rows else None
        if after is not None and after > on_or_before:
            return with_rows
        view = read_ledger(
            self.catalog, schema.name, after or FIRST_SESSION, on_or_before, ledger_scopes(scopes)
        )
        entries = view.entries
        candidates = sorted(
            {e.date_key for e in entries if e.successful and XSHG.is_session(e.date_key)},
            reverse=True,
        )
        for d in candidates[:LOOKBACK_CHECKS]:
            gaps = self._gaps(schema, symbols, [(s, d) for s in scopes], view, ask)
            if fetched_sessions([d], len(scopes), gaps):
                return d
        return with_rows

    @staticmethod
    def _date_status(effective: date | None, win: Window) -> DateStatus:
        if effective is None:
            return DateStatus.UNKNOWN
        if effective < win.target:
            return DateStatus.STALE
        return (
            DateStatus.CURRENT if win.requested_end == win.target else DateStatus.LATEST_TRADING_DAY
        )

    @staticmethod
    def _date_notes(
        dataset: str,
        win: Window,
        effective: date | None,
        date_status: DateStatus,
        status: ResultStatus,
        ask: Ask,
    ) -> list[str]:
        notes = []
        if date_status is DateStatus.LATEST_TRADING_DAY:
            why = (
                "is after the as-of date"
                if win.requested_end > ask.cutoff.date()
                else "is not an XSHG session"
            )
            notes.append(f"{win.requested_end} {why}; answered for the session {win.target}.")
        if date_status is DateStatus.STALE and effective is not None:
            notes.append(
                f"{dataset} for {win.target} are not available ({status}); the latest session "
                f"with {dataset} known as of {ask.as_of} is {effective}"
                + (" (ask for it explicitly)." if win.single else ".")
            )
        if date_status is DateStatus.UNKNOWN and status not in BENIGN_ANSWER:
            notes.append(f"No {dataset} known as of {ask.as_of} for this request.")
        return notes

    # ------------------------------------------------------------ adjustment

    def _adjusted(
        self, frame: pd.DataFrame, symbols: list[str], ask: Ask, mode: str
    ) -> tuple[pd.DataFrame, list[Gap], dict[str, Any]]:
        factors = self._factor_series(symbols, ask)
        coverage: dict[str, date] = {}
        if not factors.empty:
            coverage = factors.groupby("symbol")["trade_date"].max().to_dict()
        if not frame.empty:
            lo, hi = min(frame["trade_date"]), max(frame["trade_date"])
            view = LedgerView(
                self.catalog.ledger_entries(
                    "adj_factors", lo, hi, symbol=sorted({*symbols, WHOLE_MARKET})
                )
            )
            for sym in symbols:
                fetched = [e.date_key for e in view.for_symbol(sym) if e.successful]
                if fetched:
                    coverage[sym] = max(coverage.get(sym, date.min), *fetched)
        result = adjust_prices(frame, factors, coverage, mode)
        gaps = []
        for sym, dates in sorted(result.uncovered.items()):
            gaps.append(
                Gap(
                    sym,
                    max(dates),
                    ResultStatus.NOT_READY,
                    f"no adjustment factor known as of {ask.as_of} for {len(dates)} requested "
                    f"row(s) ({min(dates)}…{max(dates)}); {mode} prices are not served unadjusted",
                )
            )
        meta = {
            "mode": mode,
            "anchors": {s: a.to_dict() for s, a in sorted(result.anchors.items())},
        }
        return result.frame, gaps, meta

    def _factor_series(self, symbols: list[str], ask: Ask) -> pd.DataFrame:
        """Per symbol, one vendor's factors as known at the cutoff: the vendor of the latest
        factor, and only its rows (bases differ between vendors)."""
        files = [
            p.path
            for p in self.store.list_partitions("adj_factors")
            if not p.value.isdigit() or int(p.value) <= ask.cutoff.year
        ]
        empty = pd.DataFrame(columns=["symbol", "trade_date", "adj_factor", "source"])
        if not files:
            return empty
        p = Params()
        where = [
            f"{col('symbol')} IN {p.in_list(symbols)}",
            *visible(p, ask.cutoff, ask.as_ingested),
        ]
        sql = f"""
            WITH f AS (
                SELECT t.symbol, t.trade_date, t.adj_factor, t.source, t.known_at
                FROM {self._reader.source(files, p)} WHERE {" AND ".join(where)}
            ),
            last_day AS (SELECT symbol, max(trade_date) AS d FROM f GROUP BY symbol),
            vendor AS (
                SELECT f.symbol, arg_max(f.source, f.known_at) AS source
                FROM f JOIN last_day l ON f.symbol = l.symbol AND f.trade_date = l.d
                GROUP BY f.symbol
            )
            SELECT f.symbol, f.trade_date, arg_max(f.adj_factor, f.known_at) AS adj_factor,
                   any_value(f.source) AS source
            FROM f JOIN vendor v ON f.symbol = v.symbol AND f.source = v.source
            GROUP BY f.symbol, f.trade_date
            ORDER BY f.symbol, f.trade_date
        """
        out = self._reader.table(sql, p).to_pandas()
        return out if len(out) else empty

    # ================================================================ financials

    def _financials(
        self,
        symbols: list[str],
        ask: Ask,
        statement: str | None,
        periods: list[date] | None,
        latest_only: bool,
    ) -> Result:
        schema = get_schema("financials")

        def conditions(p: Params) -> list[str]:
            where = [
                f"{col('symbol')} IN {p.in_list(symbols)}",
                *visible(p, ask.cutoff, ask.as_ingested),
            ]
            if statement is not None:
                where.append(f"{col('statement')} = {p.add(statement)}")
            if periods is not None:
                where.append(f"{col('report_period')} IN {p.in_list(periods)}")
            return where

        values = sorted({str(d.year) for d in periods}) if periods else None
        files = self.store.files("financials", values)
        p = Params()
        where = conditions(p)
        if latest_only and files:
            # Two passes (performance only, same rows): the newest visible report period per
            # (symbol, statement, report_type) from a narrow scan of every year file, then the
            # full latest versions of just those periods, from just their year files.
            newest = self._newest_report_periods(files, conditions)
            where.append(f"{col('report_period')} IN {p.in_list(newest)}" if newest else "FALSE")
            files = self.store.files("financials", sorted({str(d.year) for d in newest}))
        order = ["symbol", "statement", "report_period", "report_type"]  # the key: a total order
        table = self._reader.latest_versions(schema, files, where, p, order=order)
        frame = table if table is not None and table.num_rows else _empty_table(schema)
        if latest_only and frame.num_rows:
            group = ["symbol", "statement", "report_type"]
            newest = frame.group_by(group).aggregate([("report_period", "max")])
            frame = frame.join(newest, keys=group)
            keep = pc.equal(frame.column("report_period"), frame.column("report_period_max"))
            frame = frame.filter(keep).drop_columns(["report_period_max"])
            frame = frame.sort_by([(c, "ascending") for c in order])  # the join reorders
        ledger = LedgerView(
            self.catalog.ledger_entries("financials", symbol=sorted({*symbols, WHOLE_MARKET}))
        )
        present = set(pc.unique(frame.column("symbol")).to_pylist())
        gaps = [
            self._undated_gap(s, ledger.for_symbol(s), periods) for s in symbols if s not in present
        ]
        status = combine([g.status for g in gaps], frame.num_rows > 0)
        notes = list(ask.notes)
        if gaps:
            if status in BENIGN_ANSWER:
                notes.append(
                    "No statement version public by the as-of for: "
                    + ", ".join(g.symbol for g in gaps)
                    + "."
                )
            else:
                notes.append(describe_gaps(gaps))
        return self._undated_result(frame, schema, ask, status, notes, gaps, ledger.entries)

    def _newest_report_periods(
        self, files: list[Any], conditions: Callable[[Params], list[str]]
    ) -> list[date]:
        """The distinct greatest report_period per (symbol, statement, report_type) among the
        rows visible under `conditions`."""
        p = Params()
        where = conditions(p)
        group = ", ".join(col(c) for c in ("symbol", "statement", "report_type"))
        sql = (
            f"SELECT DISTINCT newest FROM (SELECT max({col('report_period')}) AS newest "
            f"FROM {self._reader.source(files, p)} WHERE {' AND '.join(where)} "
            f"GROUP BY {group}) ORDER BY newest"
        )
        return [row[0] for row in self._reader.rows(sql, p)]

    def _undated_gap(
        self, scope: str, entries: list[LedgerEntry], periods: list[date] | None
    ) -> Gap:
        """A scope without rows in a dataset whose answer is not about one session."""
        if periods is not None:
            matching = [e for e in entries if e.date_key in periods]
            entries = matching or entries
        if any(e.successful for e in entries):
            ok = max((e for e in entries if e.successful), key=lambda e: e.recorded_at)
            return Gap(scope, None, ResultStatus.NO_DATA, "nothing public by the as-of", ok)
        if not entries:
            return Gap(scope, None, ResultStatus.UNKNOWN, "never fetched")
        last = max(entries, key=lambda e: e.recorded_at)
        return self._ledger_gap(scope, None, last)

    def _undated_result(
        self,
        frame: pa.Table,
        schema: Dataset,
        ask: Ask,
        status: ResultStatus,
        notes: list[str],
        gaps: list[Gap],
        entries: Iterable[LedgerEntry | None],
        *,
        requested_date: str | None = None,
        extra_meta: dict[str, Any] | None = None,
    ) -> Result:
        meta = self._meta(frame, ask, list(entries), gaps=gaps, rows=len(frame))
        meta.update(extra_meta or {})
        return Result(
            status=status,
            requested_date=requested_date,
            effective_trade_date=None,
            date_status=DateStatus.NOT_APPLICABLE,
            as_of=ask.as_of,
            source=self._sources(frame),
            message=" ".join(n for n in notes if n),
            table=frame,
            columns=[*schema.columns, *BITEMPORAL_COLUMNS],
            meta=meta,
        )

    # ================================================================ news

    def _news(
        self,
        symbols: list[str],
        start: date,
        end: date,
        lo: datetime,
        hi: datetime,
        ask: Ask,
        limit: int | None,
    ) -> Result:
        schema = get_schema("news")
        notes = list(ask.notes)
        requested = end.isoformat()
        if lo > ask.cutoff:
            notes.append(f"The window starts after the as-of ({ask.as_of}); nothing was public.")
            gap = Gap(WHOLE_MARKET, start, ResultStatus.NOT_READY, "window after the as-of")
            return self._undated_result(
                _empty_table(schema),
                schema,
                ask,
                ResultStatus.NOT_READY,
                notes,
                [gap],
                [],
                requested_date=requested,
            )
        p = Params()
        where = [
            f"{col('known_at')} >= {p.add(lo)}",
            f"{col('known_at')} < {p.add(hi)}",
            *visible(p, ask.cutoff, ask.as_ingested),
        ]
        if symbols:
            where.append(f"list_has_any({col('symbols')}, {p.add(symbols)})")
        bj_lo = start
        bj_hi = min(end, ask.cutoff.date())
        files = self.store.files("news", _months(bj_lo, max(bj_lo, bj_hi)))
        table = self._reader.latest_versions(schema, files, where, p)
        frame = table if table is not None and table.num_rows else _empty_table(schema)
        if frame.num_rows > 1:
            frame = frame.sort_by([("known_at", "descending"), ("news_id", "ascending")])
        extra: dict[str, Any] = {"window": {"start": start.isoformat(), "end": end.isoformat()}}
        if limit is not None and len(frame) > limit:
            extra["truncated"] = True
            extra["total_rows"] = len(frame)
            frame = frame.slice(0, limit)
        entries = self.catalog.ledger_entries(
            "news", start=start, symbol=ledger_scopes(symbols or [WHOLE_MARKET])
        )
        ledger = LedgerView(entries)
        # whole market: '*', or the symbols fetched one by one when the market never was
        scopes = symbols or whole_market_scopes(ledger)
        if scopes != [WHOLE_MARKET] and not symbols:
            extra["coverage"] = {"symbols": scopes}
            notes.append(
                "The lake holds news fetched for "
                f"{len(scopes)} symbol(s) one by one, not the whole market: this answer covers "
                f"only {', '.join(scopes[:20])}{' …' if len(scopes) > 20 else ''}."
            )
        gaps = []
        if frame.num_rows == 0:
            gaps = [self._undated_gap(s, ledger.for_symbol(s), None) for s in scopes]
        status = combine([g.status for g in gaps], frame.num_rows > 0)
        if gaps and status not in BENIGN_ANSWER:
            notes.append(describe_gaps(gaps))
        elif status is ResultStatus.NO_DATA:
            notes.append(f"No news public between {start} and {end} (Beijing) by the as-of.")
        return self._undated_result(
            frame,
            schema,
            ask,
            status,
            notes,
            gaps,
            entries[-20:],
            requested_date=requested,
            extra_meta=extra,
        )

    # ================================================================ calendar

    def _calendar(self, start: date, end: date, ask: Ask) -> Result:
        schema = get_schema("calendar")
        offline_last = XSHG.offline_last
        stored: dict[date, dict[str, Any]] = {}
        files = self.store.files("calendar", _years(start, end))
        if files:
            p = Params()
            where = [
                f"{col('date')} BETWEEN {p.add(start)} AND {p.add(end)}",
                f"{col('exchange')} = {p.add('XSHG')}",
                *visible(p, ask.cutoff, None),
            ]
            table = self._reader.latest_versions(schema, files, where, p)
            if table is not None:
                stored = {r["date"]: r for r in table.to_pylist()}
        rows: list[dict[str, Any]] = []
        missing: list[date] = []
        mismatches: list[dict[str, Any]] = []
        d = start
        while d <= end:
            if d <= offline_last:
                is_open = d >= FIRST_SESSION and XSHG.is_session(d)
                rows.append(
                    {"date": d.isoformat(), "is_open": is_open, "source": "exchange_calendars"}
                )
                if d in stored and bool(stored[d]["is_open"]) != is_open:
                    mismatches.append(
                        {
                            "date": d.isoformat(),
                            "vendor": stored[d]["source"],
                            "vendor_is_open": stored[d]["is_open"],
                        }
                    )
            elif d in stored:
                rows.append(
                    {
                        "date": d.isoformat(),
                        "is_open": bool(stored[d]["is_open"]),
                        "source": stored[d]["source"],
                    }
                )
            else:
                missing.append(d)
            d += timedelta(days=1)
        notes = list(ask.notes)
        status = ResultStatus.OK
        if missing:
            status = ResultStatus.UNKNOWN
            notes.append(
                f"No calendar known for {missing[0]}…{missing[-1]} ({len(missing)} days): the "
                f"offline calendar ends {offline_last}; ingest the calendar dataset to extend it."
            )
        if mismatches:
            notes.append(
                f"The stored vendor calendar disagrees with XSHG on {len(mismatches)} day(s)."
            )
        open_days = [
            r["date"] for r in rows if r["is_open"] and r["date"] <= ask.cutoff.date().isoformat()
        ]
        meta: dict[str, Any] = {"rows": len(rows), "known_at_max": None, "pinned": ask.pinned}
        if mismatches:
            meta["mismatches"] = mismatches
        return Result(
            status=status,
            requested_date=end.isoformat(),
            effective_trade_date=open_days[-1] if open_days else None,
            date_status=DateStatus.NOT_APPLICABLE,
            as_of=ask.as_of,
            source=",".join(sorted({r["source"] for r in rows})) or None,
            message=" ".join(notes),
            data=rows,
            meta=meta,
            table=_calendar_table(rows),
        )

    # ================================================================ point-in-time SQL

    def duckdb(self, as_of: str | date | datetime | None = None, *, as_ingested: Any = None) -> Any:
        """A DuckDB connection whose views (quotes, financials, …, quotes_qfq) hold exactly
        what was public at the cutoff, with file access off (`pitlake.lake.pit_sql`). A pinned
        Lake clamps the cutoff. The caller closes it."""
        from pitlake.lake import pit_sql

        return pit_sql.open_for(self, as_of, as_ingested)

    def sql(
        self, query: str, as_of: str | date | datetime | None = None, *, as_ingested: Any = None
    ) -> Result:
        """One SQL statement over the point-in-time views at the cutoff, answered as a Result
        (its rows an Arrow table: `.to_pandas()`, `.to_arrow()`)."""
        from pitlake.lake import pit_sql

        return pit_sql.answer(self, query, as_of, as_ingested)

    # ================================================================ envelope pieces

    @staticmethod
    def _sources(data: pd.DataFrame | pa.Table) -> str | None:
        if isinstance(data, pa.Table):
            if "source" not in data.column_names:
                return None
            values = pc.unique(data.column("source")).to_pylist()
        else:
            if "source" not in data.columns:
                return None
            values = data["source"].dropna().unique().tolist()
        return ",".join(sorted({str(s) for s in values if s is not None})) or None

    @staticmethod
    def _meta(
        data: pd.DataFrame | pa.Table,
        ask: Ask,
        entries: Iterable[LedgerEntry | None],
        *,
        gaps: list[Gap],
        rows: int,
        view: LedgerView | None = None,
    ) -> dict[str, Any]:
        known_max = None
        if len(data):
            known_max = (
                pc.max(data.column("known_at")).as_py()
                if isinstance(data, pa.Table)
                else data["known_at"].max()
            )
        meta: dict[str, Any] = {
            "rows": rows,
            "known_at_max": iso_beijing(known_max) if known_max is not None else None,
            "vendor_trace": vendor_trace(entries, view),
            "pinned": ask.pinned,
        }
        if ask.as_ingested is not None:
            meta["as_ingested"] = iso_beijing(ask.as_ingested)
        meta.update(gaps_meta(gaps))
        return meta
