"""The security master as of any instant: one row per interval of one state of one symbol.

`attribute` says which state: `listing` (listed from start_date, the first trading day, to
end_date, the last day before its delisting date), `name` (the short name in force), `st` (an
ST or *ST designation: `reason` says which), `suspension` (one suspended session; `start_time`
when it began during the session). `end_date` is inclusive; null = still in force. A state's
end is a later version of its row (the delisting closes the listing; a name change closes the
name before it), so an as-of read sees the end only once it was public.

Its question is the universe (`Lake.universe`, `/v1/universe`): every symbol listed and not yet
delisted on the as-of's Beijing day, with its name, board, exchange, first trading day and its
ST and suspension flags that day, from the rows known at the as-of. A listing row carries no
name: the vendors' lists give today's name, which dated at the listing would be a look-ahead;
names come from the name history (or from a list seen today, `first_seen`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pitlake.schemas.base import TS, Dataset, Kind, Partitioning, Scope, StateView
from pitlake.schemas.query import StateQuery, query_model
from pydantic import Field

from pitlake.errors import InvalidArgumentsError
from pitlake.limit_rules import SZSE_DELISTING_SINCE, Period
from pitlake.pit import rule_state_intervals
from pitlake.symbols import Board, parse

if TYPE_CHECKING:
    import pandas as pd

LISTING, NAME, ST, SUSPENSION = "listing", "name", "st", "suspension"
ATTRIBUTES = (LISTING, NAME, ST, SUSPENSION)
BOARDS: tuple[str, ...] = tuple(b.value for b in Board)
# A name in force that marks an ST designation: ST, *ST, and the pre-reform S / SST / S*ST.
ST_NAME = r"^S?\*?ST"
# A name in force during a delisting-arrangement period (退市整理期): the exchanges mark the
# short name for the period, "XX退" (SZSE; both exchanges since the 2020 reform) or "退市XX"
# (SSE before it, STAR's 2019 listing rules 12.7.2).
DELISTING_NAME = r"^退市|退$"
# Before a delisting date: a period (≤ 30 sessions) and the ≤ 5 sessions to the delisting,
# with room for the Spring Festival; where the names cannot tell a period, its days are unknown.
UNSURE_SPAN = timedelta(days=70)

FIELDS: tuple[pa.Field, ...] = (
    pa.field("symbol", pa.string(), nullable=False),
    pa.field("attribute", pa.string(), nullable=False),
    pa.field("start_date", pa.date32(), nullable=False),
    pa.field("end_date", pa.date32()),
    pa.field("name", pa.string()),
    pa.field("board", pa.string()),
    pa.field("exchange", pa.string()),
    pa.field("reason", pa.string()),
    pa.field("ann_date", pa.date32()),
    pa.field("start_time", pa.string()),
    pa.field("undated", pa.bool_(), nullable=False),
)
COLUMN_DOCS: dict[str, str] = {
    "attribute": "listing | name | st | suspension",
    "start_date": "first day in the state",
    "end_date": "last day in the state (inclusive); null: open",
    "name": "name rows: the short name in force",
    "board": "listing rows: main, STAR, ChiNext, BSE, B",
    "exchange": "listing rows: SH, SZ, BJ",
    "reason": (
        "listing: the vendor's list status (L, D, P); name: the change reason; st: ST or *ST; "
        "suspension: the vendor's reason or type"
    ),
    "ann_date": "the vendor's announcement date, when it gives one",
    "start_time": "HH:MM Beijing the state began that day, if stated",
    "undated": "the vendor gave no date (a list of today's states): dated at the fetch, first_seen",
}
KEY = ("symbol", "attribute", "start_date")
SCHEMA_COLUMNS: tuple[str, ...] = tuple(f.name for f in FIELDS)

UNIVERSE_FIELDS: tuple[pa.Field, ...] = (
    pa.field("symbol", pa.string(), nullable=False),
    pa.field("name", pa.string()),  # the short name in force that day (null: no name known)
    pa.field("board", pa.string()),  # main, STAR, ChiNext, BSE, B
    pa.field("exchange", pa.string()),  # SH, SZ, BJ
    pa.field("list_date", pa.date32()),  # first trading day
    pa.field("is_st", pa.bool_(), nullable=False),
    pa.field("is_suspended", pa.bool_(), nullable=False),
    pa.field("source", pa.string()),  # the vendors of the rows used, comma-separated
    pa.field("known_at", TS),  # the latest known_at among them
)


# A suspension of a whole session is public by the call auction's open (announced before it).
CALL_AUCTION = "09:15"
ONE_DAY = timedelta(days=1)


def _frame(n: int, **columns: Any) -> pd.DataFrame:
    import pandas as pd

    base = {c: [None] * n for c in SCHEMA_COLUMNS}
    base["undated"] = [False] * n
    base.update({k: list(v) if not isinstance(v, str) else [v] * n for k, v in columns.items()})
    return pd.DataFrame(base, columns=list(SCHEMA_COLUMNS))


def listing_rows(
    symbols: pd.Series, list_dates: pd.Series, delist_dates: pd.Series, status: pd.Series | str
) -> pd.DataFrame:
    """Listing intervals: from the first trading day to the day before the delisting date
    (null while listed). Board and exchange follow from the code (pitlake.symbols)."""
    import pandas as pd

    ends = [None if pd.isna(x) else x - ONE_DAY for x in delist_dates]
    parsed = [parse(s) for s in symbols]
    return _frame(
        len(symbols),
        symbol=symbols,
        attribute=LISTING,
        start_date=list_dates,
        end_date=ends,
        board=[p.board.value for p in parsed],
        exchange=[p.exchange.value for p in parsed],
        reason=status,
    )


def name_rows(
    symbols: pd.Series,
    names: pd.Series,
    starts: pd.Series,
    ends: pd.Series,
    announced: pd.Series,
    reasons: pd.Series,
) -> pd.DataFrame:
    """Name intervals, and an ST interval beside each name that marks one (ST, *ST, S*ST,
    SST: the designation is the name in force)."""
    import pandas as pd

    names_ = _frame(
        len(symbols),
        symbol=symbols,
        attribute=NAME,
        start_date=starts,
        end_date=ends,
        name=names,
        reason=reasons,
        ann_date=announced,
    )
    marked = names_["name"].astype("string").str.contains(ST_NAME).fillna(False).astype(bool)
    st = names_[marked].copy()
    st["attribute"] = ST
    st["reason"] = ["*ST" if "*ST" in n else "ST" for n in st["name"]]
    return pd.concat([names_, st], ignore_index=True)


def suspension_rows(
    symbols: pd.Series, days: pd.Series, times: pd.Series | None, reasons: pd.Series | str
) -> pd.DataFrame:
    """One suspended session per row; public by the call auction's open, or from the stated
    time of an intraday suspension."""
    import pandas as pd

    n = len(symbols)
    at = [
        CALL_AUCTION if t is None or pd.isna(t) else t
        for t in (times if times is not None else [None] * n)
    ]
    return _frame(
        n,
        symbol=symbols,
        attribute=SUSPENSION,
        start_date=days,
        end_date=days,
        start_time=at,
        reason=reasons,
    )


def observed_rows(
    symbols: pd.Series,
    attribute: str,
    day: date,
    names: pd.Series | None = None,
    reasons: Any = None,
) -> pd.DataFrame:
    """States a vendor lists for today without a date: in force on the fetch's Beijing day
    only, known from the fetch (`undated`, first_seen), never back-dated."""
    n = len(symbols)
    out = _frame(
        n,
        symbol=symbols,
        attribute=attribute,
        start_date=[day] * n,
        end_date=[day] * n,
        name=names if names is not None else [None] * n,
        reason=reasons if reasons is not None else [None] * n,
    )
    out["undated"] = True
    return out


def finish(frames: list[pd.DataFrame], fetched_on: date) -> pd.DataFrame:
    """The fetch's rows, one per key (a vendor repeating a row: the last announced wins),
    and beside each interval that began before the fetch's day and has ended (or will), its
    open-ended version: the start was public long before the end, so a read between them
    sees the state in force (a backfill from today's lists then answers the past as it was
    known, not only from the end on)."""
    import pandas as pd

    frames = [f for f in frames if not f.empty]
    if not frames:
        return _frame(0)
    out = pd.concat(frames, ignore_index=True)
    out = out[out["symbol"].notna() & out["start_date"].notna()]
    out = out.sort_values(["ann_date"], kind="stable", na_position="first")
    out = out.drop_duplicates(list(KEY), keep="last")
    starts = pd.to_datetime(out["start_date"])
    ends = pd.to_datetime(out["end_date"])
    began = ends.notna() & (ends > starts) & (starts < pd.Timestamp(fetched_on))
    opened = out[began.to_numpy()].copy()
    opened["end_date"] = None
    return pd.concat([out, opened], ignore_index=True)


@dataclass(frozen=True)
class UniverseOptions:
    board: str | None
    include_st: bool
    include_suspended: bool


def check(q: Any) -> UniverseOptions:
    """The universe's own parameters, checked (one clear line for a bad one)."""
    board = q.board
    if board is not None:
        if not isinstance(board, str) or not board.strip():
            raise InvalidArgumentsError(f"invalid board {board!r}: expected one of {BOARDS}")
        wanted = {b.lower(): b for b in BOARDS}.get(board.strip().lower())
        if wanted is None:
            raise InvalidArgumentsError(
                f"unknown board {board!r}: expected one of {', '.join(BOARDS)}"
            )
        board = wanted
    flags = {}
    for name in ("include_st", "include_suspended"):
        value = getattr(q, name)
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0"):
            value = value.strip().lower() in ("true", "1")
        if not isinstance(value, bool):
            raise InvalidArgumentsError(f"{name} must be true or false, got {value!r}")
        flags[name] = value
    return UniverseOptions(board, **flags)


def _days(col: pd.Series) -> np.ndarray:
    """A date column as datetime64[D], NaT where null."""
    import pandas as pd

    return pd.to_datetime(col).to_numpy().astype("datetime64[D]")


def _in_force(rows: pd.DataFrame, day: date) -> np.ndarray:
    """Which rows' intervals cover `day` (start on or before it, end open or on or after it)."""
    at = np.datetime64(day, "D")
    ends = _days(rows["end_date"])
    return (_days(rows["start_date"]) <= at) & (np.isnat(ends) | (ends >= at))


def _member(values: pd.Series, among: pd.Series) -> np.ndarray:
    """values.isin(among) in Arrow (pandas builds a Python scalar per member of `among`)."""
    found = pc.is_in(
        pa.array(values, type=pa.string()), value_set=pa.array(among, type=pa.string())
    )
    return pc.fill_null(found, False).to_numpy(zero_copy_only=False)


def _latest_per_symbol(part: pd.DataFrame) -> pd.DataFrame:
    return part.sort_values(["symbol", "start_date"]).drop_duplicates("symbol", keep="last")


def _sources(used: pd.DataFrame) -> pd.Series:
    """Per symbol, its rows' vendors sorted and comma-joined: one bit per vendor, so no
    Python call per symbol (a join per group took half of a 5,000-code universe)."""
    pairs = used[["symbol", "source"]].dropna().drop_duplicates()
    vendors = sorted(pairs["source"].unique())
    bits = pairs["source"].map({v: 1 << i for i, v in enumerate(vendors)}).astype("int64")
    mask = bits.groupby(pairs["symbol"].to_numpy()).sum()  # distinct bits: the sum is the OR
    labels = {m: ",".join(v for i, v in enumerate(vendors) if m >> i & 1) for m in mask.unique()}
    return mask.map(labels)


def universe_at(rows: pd.DataFrame, day: date, opts: UniverseOptions | None = None) -> pd.DataFrame:
    """Every symbol listed on `day` (a listing interval covers it), with the states in force
    that day. `rows`: the newest version per key known at the cutoff."""
    import pandas as pd

    opts = opts or UniverseOptions(None, True, True)
    live = _in_force(rows, day)
    parts = {a: rows[live & (rows["attribute"] == a).to_numpy(dtype=bool)] for a in ATTRIBUTES}
    listed = _latest_per_symbol(parts[LISTING])
    if listed.empty:
        return pd.DataFrame({f.name: pd.Series([], dtype=object) for f in UNIVERSE_FIELDS})
    names = _latest_per_symbol(parts[NAME]).set_index("symbol")
    out = pd.DataFrame(
        {
            "symbol": listed["symbol"].to_numpy(),
            "name": listed["symbol"].map(names["name"]).to_numpy() if len(names) else None,
            "board": listed["board"].to_numpy(),
            "exchange": listed["exchange"].to_numpy(),
            "list_date": pd.to_datetime(listed["start_date"]).dt.date.to_numpy(),
        }
    )
    out["is_st"] = _member(out["symbol"], parts[ST]["symbol"])
    out["is_suspended"] = _member(out["symbol"], parts[SUSPENSION]["symbol"])
    used = pd.concat(
        [listed, names.reset_index() if len(names) else names, parts[ST], parts[SUSPENSION]]
    )
    used = used[_member(used["symbol"], out["symbol"])]
    out["source"] = out["symbol"].map(_sources(used))
    out["known_at"] = out["symbol"].map(used.groupby("symbol")["known_at"].max())
    if opts.board is not None:
        out = out[out["board"] == opts.board]
    if not opts.include_st:
        out = out[~out["is_st"]]
    if not opts.include_suspended:
        out = out[~out["is_suspended"]]
    return out.sort_values("symbol").reset_index(drop=True)


def gate_states(
    rows: pd.DataFrame, days: Sequence[date]
) -> tuple[dict[str, frozenset[date]], dict[str, date]]:
    """What `universe_at` tells the gate, for a whole window at once: per symbol, the days
    among `days` it was ST while listed, and its first trading day where that is one of
    them (a code's listings follow one another, never overlap; of two first days in the
    window the later, its re-listing, is kept). Interval arithmetic on the sorted days (a
    view per day took ~0.4 s a day on a 120,000-row master: minutes for a year's window)."""
    wanted = np.array(sorted(set(days)), dtype="datetime64[D]")
    if not len(wanted) or rows.empty:
        return {}, {}
    starts, ends = _days(rows["start_date"]), _days(rows["end_date"])
    lo = np.searchsorted(wanted, starts, "left")
    hi = np.searchsorted(wanted, np.where(np.isnat(ends), wanted[-1], ends), "right")
    hi = np.where(np.isnat(starts), lo, hi)
    attribute, symbols = rows["attribute"].to_numpy(), rows["symbol"].to_numpy()
    listing = (attribute == LISTING) & (hi > lo)
    spans: dict[str, list[tuple[int, int]]] = {}
    for s, a, b in zip(symbols[listing], lo[listing], hi[listing], strict=True):
        spans.setdefault(s, []).append((int(a), int(b)))
    st: dict[str, set[date]] = {}
    on_st = (attribute == ST) & (hi > lo)
    for s, a, b in zip(symbols[on_st], lo[on_st], hi[on_st], strict=True):
        for la, lb in spans.get(s, ()):
            x, y = max(int(a), la), min(int(b), lb)
            if y > x:
                st.setdefault(s, set()).update(wanted[x:y].astype(object))
    first = listing & (lo < len(wanted))
    first &= wanted[np.minimum(lo, len(wanted) - 1)] == starts
    order = np.argsort(starts[first], kind="stable")
    listed = {
        s: d
        for s, d in zip(symbols[first][order], starts[first][order].astype(object), strict=True)
    }
    return {s: frozenset(v) for s, v in st.items()}, listed


def delisting_periods(rows: pd.DataFrame, days: Sequence[date]) -> dict[str, list[Period]]:
    """Per symbol, its delisting-arrangement periods touching `days`: the intervals of the
    names that mark one (DELISTING_NAME), Period(first day, last day or None while open).
    A delisted code whose names carry no history (AkShare's lists: today's name only, no
    dated name row) and no marked name may have had a period the lake never saw: the
    UNSURE_SPAN before its delisting is a Period with `known` False (its limits unknown)."""
    import pandas as pd

    if rows.empty or not len(days):
        return {}
    lo, hi = np.datetime64(min(days), "D"), np.datetime64(max(days), "D")
    attribute = rows["attribute"].to_numpy(dtype=object)
    is_name = attribute == NAME
    starts, ends = _days(rows["start_date"]), _days(rows["end_date"])
    touch = np.flatnonzero(is_name & (starts <= hi) & (np.isnat(ends) | (ends >= lo)))
    texts = pa.array(rows["name"].iloc[touch], type=pa.string(), from_pandas=True)
    marked = pc.fill_null(pc.match_substring_regex(texts, DELISTING_NAME), False)
    hit = touch[marked.to_numpy(zero_copy_only=False)]  # Arrow: no Python call per name
    out: dict[str, list[Period]] = {}
    for s, a, b in zip(rows["symbol"].to_numpy()[hit], starts[hit], ends[hit], strict=True):
        out.setdefault(s, []).append(
            Period(a.astype(object), None if np.isnat(b) else b.astype(object))
        )
    span = np.timedelta64(UNSURE_SPAN.days, "D")
    near = (attribute == LISTING) & ~np.isnat(ends)
    near &= (ends >= np.datetime64(SZSE_DELISTING_SINCE, "D")) & (ends - span <= hi) & (ends >= lo)
    if near.any():  # delisted around the window: did the names see its period?
        undated = rows["undated"] if "undated" in rows.columns else pd.Series(False, rows.index)
        dated = set(rows["symbol"][is_name & ~undated.fillna(False).to_numpy(dtype=bool)])
        for s, b in zip(rows["symbol"].to_numpy()[near], ends[near], strict=True):
            if s not in dated and s not in out:
                out[s] = [Period((b - span).astype(object), b.astype(object), known=False)]
    return {s: sorted(p, key=lambda t: t.start) for s, p in out.items()}


SCHEMA = Dataset(
    name="securities",
    fields=FIELDS,
    column_docs=COLUMN_DOCS,
    key=KEY,
    partitioning=Partitioning("attribute", lambda f: f["attribute"].astype(str)),
    date_column=None,
    kind=Kind.STATE,
    # One unit covers the market: the session's states (nightly) or a window's (backfill).
    scope=Scope.RANGE,
    known_at=rule_state_intervals,
    default_chain=("tushare", "akshare"),
    sort=("start_date", "symbol"),
    batch_versions=True,  # an interval that ended comes with its open-ended version
    ignore_on_compare=("reason",),  # descriptive: vendors word it differently
    state=StateView(
        UNIVERSE_FIELDS, universe_at, check, gate_states, (LISTING, ST, NAME), delisting_periods
    ),
    query_name="universe",
    description="The security master: listings and delistings, names, ST designations and "
    "suspensions as intervals, each known when it was public; asked as the universe.",
    query=query_model(
        "UniverseQuery",
        StateQuery,
        "Every A-share listed at the as-of, with its states then.\n\nThe symbols listed and "
        "not yet delisted on the as-of's Beijing day (delisted companies included before "
        "their delisting: no survivorship), each with its name, board, exchange, first "
        "trading day, and whether it was ST and suspended that day, from what was public at "
        "the as-of.",
        board=(
            Annotated[
                Literal["main", "STAR", "ChiNext", "BSE", "B"] | None,
                Field(description="Only this board: main, STAR, ChiNext, BSE or B."),
            ],
            None,
        ),
        include_st=(
            Annotated[bool, Field(description="Include ST / *ST stocks (default true).")],
            True,
        ),
        include_suspended=(
            Annotated[bool, Field(description="Include stocks suspended that day (default true).")],
            True,
        ),
    ),
)
