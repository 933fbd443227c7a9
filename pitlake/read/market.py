"""The market as of a cutoff, derived from the stored bars (no vendor list needed, so it works
for any backfilled history): `Lake.market` (breadth and the pools' sizes) and `Lake.limits`
(the limit-up, limit-down or broken-board pool of one session, with the consecutive-limit
ladder), by the exchange rule of `pitlake.limits`.

Every answer is about one session and says which: the bars' own read decides the session and
its status (`readers.trade_dated.answer` over the whole market, the read package's one status
decision: a weekend is the latest session, flagged LATEST_TRADING_DAY; before the close the
session is NOT_READY). The ladder is counted over sessions up to that one only, with the bars,
limit prices and names known at the cutoff. Where Tushare's published limit prices are stored
(`limit_prices`), they are the limit prices used; elsewhere the rule's.

ST status, new listings and delisting-arrangement periods come from the security master known
at the cutoff, each session judged by its own day (`universe_facts`: an ST removed since the
session still counts as ST on it, a listing's first day has no limit, a name marked 退 puts its
sessions under the delisting period's rule); a lake without a master falls back to the newest names
it holds (`st_symbols`, the rule the gate uses for a batch's names), with no listing exemption.
An approval-regime first day's limits are on the issue price known at the cutoff
(`issue_prices`); without one that day's limit is unknown (in no pool).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from pitlake import limit_rows
from pitlake import limits as rule
from pitlake.calendar import sessions_between
from pitlake.envelope import Result
from pitlake.errors import CalendarRangeError, InvalidArgumentsError
from pitlake.limit_rules import with_lookback
from pitlake.read import arguments, scans
from pitlake.read.adjust import FACTORS
from pitlake.read.cutoff import Ask
from pitlake.read.issue_prices import issue_prices
from pitlake.read.readers import state, trade_dated
from pitlake.schemas import SCHEMAS, STATE_DATASETS, limit_prices, quotes
from pitlake.statuses import ResultStatus

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

KINDS: tuple[str, ...] = rule.POOLS
DERIVED = "derived:quotes"  # the answers' source: the lake's own bars, no vendor list
LADDER_SESSIONS = 16  # sessions read back for the ladder first; doubled while a run reaches back
MAX_LADDER_SESSIONS = 8192  # about 34 years: every session since the market opened
BAR_COLUMNS = ["symbol", "trade_date", "high", "close", "pre_close", "volume", "amount", "pct_chg"]
POOL_COLUMNS = [
    "symbol",
    "trade_date",
    "pool",
    "consecutive",
    "close",
    "pre_close",
    "high",
    "pct_chg",
    "up_limit",
    "down_limit",
    "amount",
]


def st_symbols(lake: Lake, ask: Ask, lo: date, hi: date) -> frozenset[str]:
    """Codes the lake names ST at the cutoff, for a lake without a security master: the
    newest name stored for each code in any dataset with a name column, sessions lo..hi or
    the 400 days before."""
    names: dict[str, tuple[date, str | None]] = {}
    for spec in SCHEMAS.values():
        fields = {f.name for f in spec.fields}
        if not {"symbol", "name"} <= fields or spec.date_column is None or spec.query is None:
            continue
        table, _ = scans.read_latest(lake, spec, None, lo - timedelta(days=400), hi, ask)
        rows = table.select(["symbol", spec.date_column, "name"]).to_pylist()
        for row in rows:
            day = row[spec.date_column]
            if row["symbol"] not in names or day >= names[row["symbol"]][0]:
                names[row["symbol"]] = (day, row["name"])
    return limit_rows.st_names({s: n for s, (_, n) in names.items()})


def universe_facts(
    lake: Lake, ask: Ask, lo: date, hi: date
) -> tuple[dict[str, frozenset[date]], dict[str, date], dict[str, list[Any]]] | None:
    """From the security master known at the cutoff: per code, the sessions lo..hi it was
    ST (each session judged by its own day: an ST removed since is still ST before), each
    code's first trading day within lo..hi (no limit then) and its delisting-arrangement
    periods touching lo..hi (its names then); None without a master."""
    for name in STATE_DATASETS:
        spec = SCHEMAS[name]
        if spec.state is None or spec.state.gate_days is None:
            continue
        rows = state.rows_by(
            lake.store,
            lake.reader,
            spec,
            hi,
            ask.cutoff,
            ask.as_ingested,
            spec.state.gate_partitions,
        )
        if rows.empty:
            continue
        # the sessions before lo too: a code listed there is still in its no-limit window
        days = with_lookback(sessions_between(lo, hi))
        st, listed = spec.state.gate_days(rows, days)
        found = spec.state.gate_delisting
        return st, listed, (found(rows, days) if found is not None else {})
    return None


def _frame(table: pa.Table, cols: list[str]) -> pd.DataFrame:
    """Arrow → pandas for the derivation, codes as a categorical and days as datetime64:
    hashing strings and comparing date objects cost most of a warm read (`_answer_frame`
    turns them back)."""
    if not table.num_rows:
        return pd.DataFrame(columns=cols)
    out = table.select(cols)
    for name, convert in (
        ("symbol", lambda c: c.dictionary_encode()),
        ("trade_date", lambda c: c.cast(pa.timestamp("s"))),
    ):
        i = out.schema.get_field_index(name)
        out = out.set_column(i, name, convert(out.column(name)))
    return out.to_pandas()


def _bars(lake: Lake, lo: date, hi: date, ask: Ask) -> pd.DataFrame:
    table, _ = scans.read_latest(lake, quotes.SCHEMA, None, lo, hi, ask)
    return _frame(table, BAR_COLUMNS)


def _authority(lake: Lake, lo: date, hi: date, ask: Ask) -> pd.DataFrame:
    table, _ = scans.read_latest(lake, limit_prices.SCHEMA, None, lo, hi, ask)
    return _frame(table, ["symbol", "trade_date", "up_limit", "down_limit"])


def _factors(lake: Lake, bars: pd.DataFrame, lo: date, hi: date, ask: Ask) -> pd.DataFrame | None:
    """The adjustment factors known at the cutoff, for bars without the vendor's pre_close
    (AkShare's): the limit base on an ex-date is then the ex-right reference."""
    if bars.empty or not bars["pre_close"].isna().any():
        return None
    table, _ = scans.read_latest(lake, FACTORS, None, lo, hi, ask)
    return _frame(table, ["symbol", "trade_date", "adj_factor"])


def _answer_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The derivation's frame in the answer's types: codes as strings, sessions as dates."""
    return frame.assign(
        symbol=frame["symbol"].astype(str),
        trade_date=pd.to_datetime(frame["trade_date"]).dt.date,
    )


def _window_start(lake: Lake, day: date, back: int) -> date:
    """The session `back` sessions before `day`, or the calendar's first one."""
    lo = day
    try:
        for _ in range(back):
            lo = lake.trading_calendar.previous_session(lo)
    except CalendarRangeError:
        pass
    return lo


def _first_session(lake: Lake) -> date:
    return lake.trading_calendar.first


def session_pools(lake: Lake, day: date, ask: Ask) -> pd.DataFrame:
    """Every bar of `day` classified (pool, limit prices) with its ladder count, from the
    bars, limit prices and names known at the cutoff; sessions after `day` never counted."""
    back = LADDER_SESSIONS
    while True:
        lo = _window_start(lake, day, back)
        bars = _bars(lake, lo, day, ask)
        facts = universe_facts(lake, ask, lo, day)
        st, listed, periods = (
            facts if facts is not None else (st_symbols(lake, ask, lo, day), {}, {})
        )
        classified = rule.classify(
            bars,
            st,
            listed,
            _authority(lake, lo, day, ask),
            issue_prices=issue_prices(lake.store, lake.reader, listed, ask.cutoff, ask.as_ingested),
            factors=_factors(lake, bars, lo, day, ask),
            delisting=periods,
        )
        classified["consecutive"] = rule.ladder(classified)
        on_day = pd.to_datetime(classified["trade_date"]) == pd.Timestamp(day)
        today = classified[on_day].reset_index(drop=True)
        seen = classified["symbol"].astype(object).value_counts()
        span = (
            seen.reindex(today["symbol"].astype(object)).to_numpy()
            - (today["pool"] == rule.BROKEN).to_numpy()
        )
        runs = today["consecutive"].to_numpy()
        reaches_back = today["pool"].notna().to_numpy() & (runs > 0) & (runs >= span)
        # a run cannot reach before the code's first trading day (a listing's first-day
        # limit-up is a run of one, not a reason to read decades of bars)
        first = today["symbol"].astype(object).map(listed).to_numpy()
        reaches_back &= ~np.array([isinstance(f, date) and f >= lo for f in first], dtype=bool)
        if not reaches_back.any() or back >= MAX_LADDER_SESSIONS or lo <= _first_session(lake):
            return today
        back *= 2  # a run reaches the window's first session: read further back


def _base(lake: Lake, day: Any, as_of: Any) -> tuple[Ask, Result]:
    """The cutoff and the whole market's bar answer for the asked session (its status,
    effective session and date status are the answer's)."""
    ask = lake.ask(as_of)
    start, end = arguments.one_session(day, None, None)
    win = arguments.window(start, end, ask, lake.trading_calendar)
    if win.sessions:  # the ladder's window and the session in one scan, not two (kept days)
        lo = _window_start(lake, win.target, LADDER_SESSIONS)
        files = lake.store.files(quotes.SCHEMA.name, scans.years(lo, win.target))
        if files:
            scans.window_slices(lake, quotes.SCHEMA, files, lo, win.target)
    return ask, trade_dated.answer(lake, quotes.SCHEMA, None, win, ask)


def _about(
    base: Result,
    rows: list[dict[str, Any]] | None,
    table: pa.Table | None,
    message: str,
    meta: dict[str, Any],
) -> Result:
    """A derived answer about the bars' session: their status, effective session and date
    status; an empty pool of a session whose bars are in is NO_DATA."""
    status = base.status
    empty = (table.num_rows == 0) if table is not None else not rows
    if empty and status is ResultStatus.OK:
        status = ResultStatus.NO_DATA
    return Result(
        status=status,
        requested_date=base.requested_date,
        effective_trade_date=base.effective_trade_date,
        date_status=base.date_status,
        as_of=base.as_of,
        source=DERIVED if not empty else None,
        message=" ".join(m for m in (message, base.message) if m),
        data=rows,
        table=table,
        meta={**meta, "pinned": base.meta.get("pinned", False), "bars": base.meta.get("rows")},
    )


def _session(base: Result) -> date | None:
    """The session the bars answer about, when they are in (OK); else None."""
    if base.status is not ResultStatus.OK or base.effective_trade_date is None:
        return None
    return date.fromisoformat(base.effective_trade_date)


def overview(lake: Lake, day: Any = None, as_of: Any = None) -> Result:
    """Breadth (advancers, decliners, unchanged, turnover in 元) and the pools' sizes and the
    ladder's height for one session."""
    try:
        ask, base = _base(lake, day, as_of)
    except InvalidArgumentsError as e:
        return Result.invalid(str(e))
    session = _session(base)
    if session is None:
        return _about(base, [], None, "No market overview: the session's bars are not in.", {})
    pools = session_pools(lake, session, ask)
    row: dict[str, Any] = {"trade_date": session.isoformat(), **rule.breadth(pools)}
    for kind in KINDS:
        row[f"limit_{kind}"] = int((pools["pool"] == kind).sum())
    ups = pools.loc[pools["pool"] == rule.UP, "consecutive"]
    row["ladder_height"] = int(ups.max()) if len(ups) else 0
    row["ladder"] = {str(k): int(v) for k, v in ups.value_counts().sort_index().items()}
    return _about(
        base, [row], None, f"Derived from the bars of {session} known at the as-of.", {"rows": 1}
    )


def pools(lake: Lake, day: Any = None, *, kind: Any = rule.UP, as_of: Any = None) -> Result:
    """One pool of one session (up, down or broken), each code with its ladder count
    (`consecutive`), highest first; meta.ladder maps each height to its codes."""
    try:
        chosen = arguments.choice("kind", kind, KINDS, default=rule.UP)
        ask, base = _base(lake, day, as_of)
    except InvalidArgumentsError as e:
        return Result.invalid(str(e))
    session = _session(base)
    if session is None:
        return _about(base, [], None, f"No {chosen} pool: the session's bars are not in.", {})
    everything = session_pools(lake, session, ask)
    found = everything[everything["pool"] == chosen].sort_values(
        ["consecutive", "symbol"], ascending=[False, True], kind="stable"
    )
    frame = _answer_frame(found).reindex(columns=POOL_COLUMNS)
    frame["consecutive"] = frame["consecutive"].astype("int64")
    frame["pool"] = frame["pool"].astype(object)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    ladder: dict[str, list[str]] = {}
    for sym, n in zip(frame["symbol"], frame["consecutive"], strict=True):
        ladder.setdefault(str(n), []).append(sym)
    message = f"The {chosen} pool of {session}, derived from the bars known at the as-of."
    findings = rule.disagreements(everything)
    if findings:
        codes = ", ".join(f["symbol"] for f in findings[:20])
        message += (
            f" The published limit prices of {len(findings)} code(s) differ from the rule's "
            f"({codes}); the published ones are used: see meta.limit_findings."
        )
    meta = {"rows": table.num_rows, "kind": chosen, "ladder": ladder, "limit_findings": findings}
    return _about(base, None, table, message, meta)
