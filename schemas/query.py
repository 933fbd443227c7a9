"""The query parameter model of a queryable dataset (`Dataset.query`), built from one base per
kind so that no parameter is typed twice.

A model declares a read's parameters once, in the order every surface shows them (symbols,
date, start, end, as_of, then the dataset's own), with their types, defaults and descriptions.
`Lake`'s methods, the HTTP routes, the MCP tools and the CLI options are all derived from it
(pitlake.read.lake, pitlake.serve); the readers check the values (bad ones are
INVALID_ARGUMENTS envelopes, never exceptions), so the models carry no validators.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, ClassVar, Literal, get_args, get_origin

from pitlake.schemas.base import Kind
from pydantic import BaseModel, ConfigDict, Field, create_model

Symbols = Annotated[
    list[str] | str,
    Field(
        description="One A-share symbol or a list: 6 digits with the exchange, e.g. "
        "'600519.SH' or ['600519.SH', '000001.SZ']; 600519, sh600519 also accepted."
    ),
]
OptionalSymbols = Annotated[
    list[str] | str | None,
    Field(
        description="Optional symbol(s) to filter on, same forms as symbols (e.g. "
        "'600519.SH'); omitted: the whole market."
    ),
]
Day = Annotated[
    str | date | None,
    Field(description="One date, YYYY-MM-DD or YYYYMMDD (Beijing calendar); not with start/end."),
]
Start = Annotated[str | date | None, Field(description="Range start, YYYY-MM-DD (inclusive).")]
End = Annotated[str | date | None, Field(description="Range end, YYYY-MM-DD (inclusive).")]
AsOf = Annotated[
    str | date | datetime | None,
    Field(
        description="Cutoff: YYYY-MM-DD (the end of that Beijing day) or ISO-8601 with offset "
        "(e.g. 2025-06-06T15:00:00+08:00). Omitted: now, or the operator's pin; never past the pin."
    ),
]


class Query(BaseModel):
    """The parameters of one read. `kind` says which reader answers it."""

    # Validators are built at a model's first validation (FastAPI's, the MCP tools'), not at
    # import: a read constructs its query unvalidated (`Lake.read`), and building all the
    # models' schemas cost a CLI read ~25 ms (decision 54).
    model_config = ConfigDict(extra="forbid", defer_build=True)

    kind: ClassVar[Kind]

    @classmethod
    def snapshot(cls, symbols: list[str], day: date | None) -> dict[str, Any]:
        """This kind's section of a snapshot: the parameters asking about `day`."""
        raise NotImplementedError


class TradeDatedQuery(Query):
    """One session (`date`, default: the latest session at the as-of) or a range
    (`start`/`end`) of a trade-dated dataset."""

    kind: ClassVar[Kind] = Kind.TRADE_DATED
    symbols: Symbols
    date: Day = None
    start: Start = None
    end: End = None
    as_of: AsOf = None

    @classmethod
    def snapshot(cls, symbols: list[str], day: date | None) -> dict[str, Any]:
        return {"symbols": symbols, "date": day}


class ReportPeriodQuery(Query):
    """Statement versions public by the as-of: the latest version per key."""

    kind: ClassVar[Kind] = Kind.REPORT_PERIOD
    symbols: Symbols
    as_of: AsOf = None

    @classmethod
    def snapshot(cls, symbols: list[str], day: date | None) -> dict[str, Any]:
        return {"symbols": symbols, "latest_only": True}


class PublishedQuery(Query):
    """Items public in Beijing-day windows by the as-of, newest first."""

    kind: ClassVar[Kind] = Kind.PUBLISHED
    snapshot_limit: ClassVar[int] = 50
    symbols: OptionalSymbols = None
    date: Day = None
    start: Start = None
    end: End = None
    as_of: AsOf = None

    @classmethod
    def snapshot(cls, symbols: list[str], day: date | None) -> dict[str, Any]:
        return {"symbols": symbols, "end": day, "limit": cls.snapshot_limit}


class ScheduledQuery(Query):
    """Plans for days in [start, end] (default: the cutoff's day and the 30 after it), as
    known at the as-of: the latest version of each plan public by then."""

    kind: ClassVar[Kind] = Kind.SCHEDULED
    symbols: OptionalSymbols = None
    date: Day = None
    start: Start = None
    end: End = None
    as_of: AsOf = None

    @classmethod
    def snapshot(cls, symbols: list[str], day: date | None) -> dict[str, Any]:
        return {"symbols": symbols, "start": day}


class CalendarQuery(Query):
    """Days in [start, end] (default: the cutoff's day) with is_open."""

    kind: ClassVar[Kind] = Kind.CALENDAR
    date: Day = None
    start: Start = None
    end: End = None
    as_of: AsOf = None


class StateQuery(Query):
    """The states in force at the as-of's instant (its Beijing day), as known then. The as-of
    comes first: it is the question."""

    kind: ClassVar[Kind] = Kind.STATE
    as_of: AsOf = None


class SnapshotListQuery(Query):
    """The list in force on `date` (default: the cutoff's day): the newest snapshot dated on
    or before it among those public by the as-of. A model declares its fields itself, the
    list's name first (e.g. `index`): it picks the rows whose first key column holds it."""

    kind: ClassVar[Kind] = Kind.SNAPSHOT_LIST


# ---------------------------------------------------------------- reads of the market, derived
# `Lake.market` / `Lake.limits` (pitlake.read.market) read several datasets, so they are no
# dataset's query; their parameters are declared here once all the same, for the surfaces
# (pitlake.serve.api.surfaces.DERIVED). The pool kinds are pitlake.limits.POOLS (a test pins
# it: that module imports pandas, which the CLI must not pay for at start).

PoolKind = Annotated[
    Literal["up", "down", "broken"],
    Field(
        description="up: closed at the limit-up price; down: at the limit-down price; "
        "broken: touched the limit-up price and closed below it."
    ),
]


class DerivedQuery(BaseModel):
    """The parameters of a read derived from several datasets."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # as `Query`'s


class MarketQuery(DerivedQuery):
    """The market of one session, derived

    Breadth (advancers, decliners, unchanged, turnover in CNY), the sizes of the limit-up,
    limit-down and broken-board pools and the ladder's height, derived from the bars known
    at the as-of; `effective_trade_date` / `date_status` say which session."""

    date: Day = None
    as_of: AsOf = None


class LimitsQuery(DerivedQuery):
    """A limit pool with its ladder, derived

    One session's limit-up, limit-down or broken-board (炸板) pool, each code with its
    consecutive-limit count (`consecutive`), highest first; meta.ladder maps each height to
    its codes. Derived from the bars known at the as-of."""

    date: Day = None
    kind: PoolKind = "up"
    as_of: AsOf = None


def query_model(name: str, base: type[Query], doc: str, **fields: tuple[Any, Any]) -> type[Query]:
    """A dataset's model: `base`'s parameters (a field given again keeps its place, with the
    new type and default), then `fields` ({name: (type, default)}) in order. `doc` is the
    read's description on every surface (first line: its summary)."""
    model = create_model(name, __base__=base, __doc__=doc, **fields)  # type: ignore[call-overload]
    return model


def is_required(model: type[BaseModel], field: str) -> bool:
    return model.model_fields[field].is_required()


def choices(model: type[BaseModel], field: str) -> tuple[Any, ...]:
    """The values a Literal-typed field allows (inside `X | None` too), in order."""

    def walk(annotation: Any) -> list[Any]:
        if get_origin(annotation) is Literal:
            return list(get_args(annotation))
        return [v for arg in get_args(annotation) for v in walk(arg)]

    return tuple(walk(model.model_fields[field].annotation))
