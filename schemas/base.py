"""What every dataset declares where it is defined (dlt-resource style): its Arrow schema, key,
partitioning, kind, known-at rule, event time, fetch scope, load rules and quality hooks.

Nothing else restates these facts: planning, the gate and the readers dispatch on `kind`,
`scope` and the flags, and the registry (`pitlake.schemas`) derives every list from the specs.
The bitemporal columns are the same for every dataset and defined only here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, time
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from pitlake import units as _units
from pitlake.errors import InvalidArgumentsError
from pitlake.pit import Rule
from pitlake.symbols import canonical_many, instrument_members

if TYPE_CHECKING:  # pandas is imported where a frame is built: a read need not load it
    import pandas as pd

TS = pa.timestamp("us", tz="UTC")

BITEMPORAL_FIELDS: tuple[pa.Field, ...] = (
    pa.field("source", pa.string(), nullable=False),
    pa.field("known_at", TS, nullable=False),
    pa.field("known_at_basis", pa.string(), nullable=False),
    pa.field("ingested_at", TS, nullable=False),
    pa.field("run_id", pa.string(), nullable=False),
)
BITEMPORAL_DOCS: dict[str, str] = {
    "source": "the vendor that actually served the row",
    "known_at": "when the fact became public (an instant; see the dataset's known-at rule)",
    "known_at_basis": "why we believe known_at (one of the rule's bases)",
    "ingested_at": "when this lake stored the row",
    "run_id": "the ingest run that stored it",
}
BITEMPORAL_COLUMNS: tuple[str, ...] = tuple(f.name for f in BITEMPORAL_FIELDS)


def by_unit(groups: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """{unit: columns} → {column: unit}: a spec's `units`, written unit by unit (the units
    are `pitlake.units`' names)."""
    return {column: unit for unit, columns in groups.items() for column in columns}


def _year_of(col: str) -> Callable[[pd.DataFrame], pd.Series]:
    def derive(frame: pd.DataFrame) -> pd.Series:
        import pandas as pd

        return pd.to_datetime(frame[col]).dt.year.astype("int64").astype(str)

    return derive


def _month_of_known_at(frame: pd.DataFrame) -> pd.Series:
    import pandas as pd

    return (
        pd.to_datetime(frame["known_at"], utc=True)
        .dt.tz_convert("Asia/Shanghai")
        .dt.strftime("%Y-%m")
    )


@dataclass(frozen=True)
class Partitioning:
    """Hive partition `<name>=<value>`; `derive` maps canonical rows to the value."""

    name: str
    derive: Callable[[pd.DataFrame], pd.Series]


def by_year(col: str) -> Partitioning:
    return Partitioning("year", _year_of(col))


BY_KNOWN_AT_MONTH = Partitioning("month", _month_of_known_at)


class Kind(StrEnum):
    """What a row is about in time; readers and the gate dispatch on it."""

    TRADE_DATED = "trade_dated"  # one row per symbol and session (bars, factors, lists)
    REPORT_PERIOD = "report_period"  # one row per symbol and reporting period (statements)
    PUBLISHED = "published"  # items dated by their publication (news)
    SCHEDULED = "scheduled"  # plans dated by the day they are for (a disclosure schedule)
    CALENDAR = "calendar"  # the exchange calendar itself
    # Intervals of states of a symbol (listed, named, suspended): asked at an instant, the
    # states in force on its Beijing day as known then (the security master)
    STATE = "state"
    # Lists dated by their snapshot (index constituents): the list in force on D is the
    # newest snapshot dated on or before D among those public by the cutoff.
    SNAPSHOT_LIST = "snapshot_list"


class Scope(StrEnum):
    """How one fetch unit covers the dataset; planning dispatches on it."""

    MARKET_BY_DATE = "market_by_date"  # one whole-market call per session
    RANGE = "range"  # one call over the whole requested range
    UNIVERSE = "universe"  # per symbol, over the stored universe


# The columns a state view gives the gate (RunContext.st_symbols, new_listings): a member's
# ST flag and its first trading day.
GATE_STATE_COLUMNS: tuple[str, ...] = ("symbol", "is_st", "list_date")


@dataclass(frozen=True)
class StateView:
    """How a STATE dataset answers at an instant. `view(rows, day, options)` turns its rows
    in force by `day` (the newest version per key known at the cutoff whose interval starts on
    or before `day`; the view still checks the ends) into one row per member with its states
    that day, in `fields`' columns (GATE_STATE_COLUMNS among them). `check(query)` turns the
    query's own parameters into `options`, refusing bad values (InvalidArgumentsError) before
    any file is read."""

    fields: tuple[pa.Field, ...]
    view: Callable[[pd.DataFrame, date, Any], pd.DataFrame]
    check: Callable[[Any], Any]
    # The gate's columns for a whole window at once: (symbol → the days among `days` it
    # was ST, symbol → its first trading day when that is one of them); None: `view` per day.
    gate_days: (
        Callable[[pd.DataFrame, Sequence[date]], tuple[dict[str, frozenset[date]], dict[str, date]]]
        | None
    ) = None
    # The partitions gate_days reads (None: all): the gate needs listings and ST, not the
    # hundred thousand suspended sessions (a scan of 14 ms instead of 190 ms).
    gate_partitions: tuple[str, ...] | None = None
    # The delisting-arrangement periods (退市整理期) touching `days`, from the same rows:
    # symbol → [limit_rules.Period(first day, last day or None, known)]; None: the dataset
    # cannot tell them.
    gate_delisting: Callable[[pd.DataFrame, Sequence[date]], dict[str, list[Any]]] | None = None

    @property
    def arrow_schema(self) -> pa.Schema:
        return pa.schema(list(self.fields))


@dataclass(frozen=True)
class Dataset:
    name: str
    fields: tuple[pa.Field, ...]  # canonical data columns (without the bitemporal ones)
    key: tuple[str, ...]
    partitioning: Partitioning
    date_column: str | None  # the column a ledger entry is about (trade_date, report_period)
    kind: Kind
    scope: Scope
    known_at: Rule  # the known-at rule (pitlake.pit.rule_*); the basis is per row
    default_chain: tuple[str, ...]  # vendors tried in order when the user names none
    # The instant a row's date describes is over (session close, ex-date open, end of day):
    # the gate refuses a row known before it. None: no such instant (news, the calendar).
    event_time: time | None = None
    never_empty: bool = False  # a whole-market session never has zero rows
    row_count_floor: float | None = None  # share of the previous session's rows required
    nightly: bool = True  # ingested by the nightly run (else by backfills only)
    queryable: bool = True  # a query surface of its own (adj_factors feed qfq/hfq only)
    quality: tuple[str, ...] = ()  # named quality hooks (pitlake.expectations.hooks)
    batch_versions: bool = False  # one batch may hold several versions of a key (known_at)
    # The query parameter model (pitlake.schemas.query) its surfaces are generated from;
    # None: no query of its own.
    query: type[Any] | None = None
    # The run's reference bars (quotes: the gate's and the limit checks' bars). Not the
    # symbols per-symbol fetches ask about: those are the security master's (decision 38).
    defines_universe: bool = False
    # A symbol's series is kept from one vendor: rows from another vendor are not mixed in
    # (factor bases differ between vendors, so a mixed series would misadjust prices).
    one_vendor_per_symbol: bool = False
    # Its symbols are a closed set of instruments that are not stocks (index codes, which
    # collide with stock codes): queries check symbols against it instead of parsing them as
    # A-share codes. Empty: A-share symbols (pitlake.symbols).
    instruments: tuple[str, ...] = ()
    # A STATE dataset's answer at an instant (the universe); None for every other kind.
    state: StateView | None = None
    # The name its query surfaces go by (Lake.<name>, /v1/<name>, the MCP tool, the CLI's
    # DATASET) when the question differs from the rows (securities answers the universe);
    # None: the dataset's name.
    query_name: str | None = None
    # The name of its MCP tool when that is not the dataset's own (a task-shaped tool of the
    # same name answers something else: the derived `limit_pools`). Empty: the dataset's name.
    tool: str = ""
    # A run-level check of its rows against the run's bars (pitlake.expectations.limit_checks):
    # "pools" (a vendor's limit pools) or "prices" (a vendor's limit prices); a difference is a
    # warning naming each code. Empty: none.
    bars_check: str = ""
    # The column of its rows that is a listing's issue price (元): the base of an
    # approval-regime first day's limits (pitlake.limits), read by the gate and the derived
    # market at their cutoffs. Empty: none.
    issue_price_column: str = ""
    sort: tuple[str, ...] = ()  # within-partition order; defaults to key
    # Columns excluded from "did the values change?" (vendor noise such as names, free text).
    ignore_on_compare: tuple[str, ...] = ()
    # column → its canonical unit (`pitlake.units`: CNY, CNY/share, shares, percent, index
    # points), written with `by_unit`; a column not named has none (codes, dates, ratios).
    units: Mapping[str, str] = field(default_factory=dict)
    description: str = ""
    # column → what it holds, where its name does not say it (the catalogue shows it).
    column_docs: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """A unit or a doc for a column the spec does not have, or a unit pitlake does not
        know, is a spec error: found at import, never shown by the catalogue."""
        for what, named in (("units", self.units), ("column_docs", self.column_docs)):
            stray = sorted(set(named) - set(self.columns))
            if stray:
                raise ValueError(f"{self.name}: {what} names no column {stray}")
        unknown = sorted(set(self.units.values()) - set(_units.UNITS))
        if unknown:
            raise ValueError(f"{self.name}: unknown units {unknown}; known: {_units.UNITS}")

    @property
    def arrow_schema(self) -> pa.Schema:
        return pa.schema(list(self.fields) + list(BITEMPORAL_FIELDS))

    @property
    def asked_as(self) -> str:
        """The name of its query on every surface."""
        return self.query_name or self.name

    @property
    def columns(self) -> list[str]:
        return [f.name for f in self.fields]

    @property
    def all_columns(self) -> list[str]:
        return self.columns + list(BITEMPORAL_COLUMNS)

    @property
    def value_columns(self) -> list[str]:
        """Columns whose change makes a new version."""
        skip = set(self.key) | set(self.ignore_on_compare)
        return [c for c in self.columns if c not in skip]

    @property
    def per_symbol(self) -> bool:
        """Are its rows about symbols (a `symbol`/`symbols` column), unlike the calendar?"""
        return bool({"symbol", "symbols"} & set(self.columns))

    def symbols_of(self, symbols: object) -> list[str]:
        """`symbols` in this dataset's form: members of its `instruments` (index codes), else
        canonical A-share codes; anything else is an InvalidArgumentsError."""
        if self.instruments:
            return instrument_members(symbols, self.instruments)
        return canonical_many(symbols)

    def own_symbols(self, symbols: Sequence[str] | None) -> tuple[str, ...]:
        """The symbols of a run (already valid for some dataset) that this dataset is about:
        its instruments, or the A-share codes among them."""
        mine = []
        for s in symbols or ():
            try:
                mine.extend(self.symbols_of([s]))
            except InvalidArgumentsError:
                continue
        return tuple(mine)

    @property
    def version_key(self) -> tuple[str, ...]:
        return (*self.key, "known_at")

    @property
    def sort_columns(self) -> list[str]:
        return [*(self.sort or self.key), "known_at"]

    def empty_frame(self) -> pd.DataFrame:
        return self.arrow_schema.empty_table().to_pandas()

    def to_arrow(self, frame: pd.DataFrame) -> pa.Table:
        """Canonical frame → Arrow table in exactly this schema (raises on missing columns)."""
        missing = [c for c in self.all_columns if c not in frame.columns]
        if missing:
            raise ValueError(f"{self.name}: missing canonical columns {missing}")
        return pa.Table.from_pandas(
            frame[self.all_columns], schema=self.arrow_schema, preserve_index=False
        )
