"""`write_qlib`: a qlib data directory holding what the lake knew at a cutoff (issue 29).

Read through the lake's own point-in-time readers, never from the files directly:
- the calendar: `Lake.calendar` as of the cutoff (a day not yet announced then is left out);
- `instruments/all.txt`: every listing interval of the security master known at the cutoff,
  delisted companies included (survivorship-free), clipped to the exported sessions;
- `instruments/<index>.txt` (csi300, …): one interval per membership spell, the members on
  each session D as `Lake.index_members(date=D, as_of=D 15:00)` answers them (the newest
  snapshot dated on or before D among the rows public by D's close), so a member that left
  and came back has two lines;
- day features: `Lake.quotes(adjust="hfq")` — qlib's convention, `$close` the adjusted price
  and `$factor` the adjustment factor, so raw = `$close / $factor`; `$volume` is shares ÷
  factor, `$amount` 元 as traded, `$vwap` the adjusted average price, `$change` the adjusted
  close over the previous one (the first bar: over its adjusted `pre_close`);
- financials in qlib's PIT format from `financials_versions` (consolidated statements,
  report_type '1'), each version dated at the FIRST SESSION whose close (15:00 +08:00) is at
  or after its known_at: qlib shows a record on its `date`, all day, so an evening
  announcement (known at the end of its Beijing day) appears on the next session, never on
  the day it was published after the close.

Every read is vouched for by its status (from the ingest ledger, pitlake.read.status): a
session whose fetch failed, was rate-limited, never ran or is not ready, and a symbol whose
bars have no factor, would be an empty day in qlib, indistinguishable from a suspension. So a
read that is not OK / NO_DATA fails the export (`ExportIncompleteError`, nothing written)
unless `allow_gaps=True` (`--allow-gaps`): then the gaps are written empty and listed in the
summary (`gaps`).
"""

from __future__ import annotations

import bisect
import os
import shutil
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitlake.calendar import session_close, to_date
from pitlake.errors import InvalidArgumentsError
from pitlake.export import qlib_format as fmt
from pitlake.export.qlib_summary import ExportIncompleteError, QlibExport
from pitlake.schemas import index_members
from pitlake.schemas.financials import LINE_ITEMS
from pitlake.statuses import BENIGN_ANSWER

if TYPE_CHECKING:
    import pandas as pd

    from pitlake.read.lake import Lake

__all__ = ["ExportIncompleteError", "QlibExport", "write_qlib"]

# qlib's market names for the stored indices (its own files are csi300.txt, csi500.txt, …).
QLIB_MARKETS: dict[str, str] = {
    "000300.SH": "csi300",
    "000905.SH": "csi500",
    "000852.SH": "csi1000",
    "000016.SH": "sse50",
    "000688.SH": "star50",
}
DAY_FIELDS = ("open", "high", "low", "close", "volume", "amount", "vwap", "factor", "change")
CONSOLIDATED = "1"  # financials.report_type: Tushare's consolidated cumulative statements
CHUNK = 500  # symbols per bars read


def market_name(index_code: str) -> str:
    """qlib's name for an index's instruments file (csi300), else its code (000300_sh)."""
    return QLIB_MARKETS.get(index_code, index_code.replace(".", "_").lower())


def write_qlib(
    lake: Lake,
    directory: str | os.PathLike[str],
    start: str | date,
    end: str | date,
    as_of: str | date | datetime | None = None,
    *,
    allow_gaps: bool = False,
) -> QlibExport:
    """Write a qlib data directory at `directory` (absent or empty) for the sessions in
    [start, end] as known at `as_of` (default: now; the lake's pin clamps it). Bad
    arguments raise InvalidArgumentsError before anything is written; a read that is not
    OK / NO_DATA raises ExportIncompleteError unless `allow_gaps`; the directory appears
    whole (built beside it, then renamed) or not at all."""
    lo, hi = to_date(start), to_date(end)
    if lo > hi:
        raise InvalidArgumentsError(f"start {lo} is after end {hi}")
    target = Path(directory)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InvalidArgumentsError(f"{target} exists and is not an empty directory")
    ask = lake.ask(as_of)
    summary = QlibExport(target, ask.as_of, allow_gaps=allow_gaps)
    days = _sessions(lake, lo, hi, ask.cutoff, summary)
    if not days:
        raise InvalidArgumentsError(f"no XSHG session in {lo} … {hi} was known as of {ask.as_of}")
    summary.sessions, summary.first_session, summary.last_session = len(days), days[0], days[-1]
    building = target.parent / f".{target.name}.building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    try:
        _write_all(lake, building, days, ask.cutoff, summary)
        if target.exists():
            target.rmdir()
        building.rename(target)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return summary


def _write_all(
    lake: Lake, root: Path, days: list[date], cutoff: datetime, summary: QlibExport
) -> None:
    fmt.write_calendar(root, days)
    con = lake.duckdb(cutoff)
    try:
        listings = _listing_spans(con, days, cutoff)
        markets = _index_spans(con, days, cutoff)
        statements = _statement_versions(con)
    finally:
        con.close()
    featured = _write_features(lake, root, days, cutoff, sorted(listings), summary)
    for sym, (first, last) in featured.items():  # bars without a master row: their span
        listings.setdefault(sym, [(first, last)])
    fmt.write_instruments(root, "all", listings)
    summary.instruments = len(listings)
    for code, spans in markets.items():
        fmt.write_instruments(root, market_name(code), spans)
        summary.markets[market_name(code)] = len(spans)
    _write_statements(lake, root, days, statements, summary)


def _sessions(lake: Lake, lo: date, hi: date, cutoff: datetime, summary: QlibExport) -> list[date]:
    """The open days of [lo, hi] in the calendar as known at the cutoff."""
    result = lake.calendar(start=lo, end=hi, as_of=cutoff)
    summary.vouch(result, "the calendar")
    return [to_date(r["date"]) for r in result.data if r.get("is_open")]


# ---------------------------------------------------------------- instruments


def _clip(days: list[date], lo: date, hi: date | None) -> tuple[date, date] | None:
    """[lo, hi] as the exported sessions it covers (None: none)."""
    i = bisect.bisect_left(days, lo)
    j = bisect.bisect_right(days, hi if hi is not None else days[-1]) - 1
    return (days[i], days[j]) if i <= j else None


def _listing_spans(con: Any, days: list[date], cutoff: datetime) -> dict[str, list]:
    """symbol → its listing intervals known at the cutoff, as exported sessions."""
    rows = con.execute(
        "SELECT symbol, start_date, end_date FROM securities "
        "WHERE attribute = 'listing' AND start_date <= ? ORDER BY symbol, start_date",
        [_day(cutoff)],
    ).fetchall()
    spans: dict[str, list[tuple[date, date]]] = {}
    for sym, lo, hi in rows:
        span = _clip(days, lo, hi)
        if span is not None:
            spans.setdefault(sym, []).append(span)
    return spans


def _day(at: datetime) -> date:
    from pitlake.calendar import beijing

    return beijing(at).date()


def _index_spans(con: Any, days: list[date], cutoff: datetime) -> dict[str, dict[str, list]]:
    """index → symbol → membership spells (first, last session), the members of each session
    D read as of min(D's close, the cutoff)."""
    rows = con.execute(
        "SELECT index_code, trade_date, symbol, min(known_at) AS known_at "
        "FROM index_members_versions GROUP BY ALL ORDER BY index_code, trade_date, known_at"
    ).fetchall()
    by_index: dict[str, dict[date, list[tuple[datetime, str]]]] = {}
    for code, snap, sym, known in rows:
        if code in index_members.SCHEMA.instruments:
            by_index.setdefault(code, {}).setdefault(snap, []).append((known, sym))
    return {code: _spells(snaps, days, cutoff) for code, snaps in sorted(by_index.items())}


def _spells(
    snapshots: dict[date, list[tuple[datetime, str]]], days: list[date], cutoff: datetime
) -> dict[str, list[tuple[date, date]]]:
    dated = sorted(snapshots)
    spells: dict[str, list[tuple[date, date]]] = {}
    open_since: dict[str, date] = {}
    previous: date | None = None
    last_key: tuple[date, int] | None = None
    members: set[str] = set()
    for d in days:
        at = min(session_close(d), cutoff)
        key: tuple[date, int] | None = None
        now: set[str] = set()
        for snap in reversed(dated[: bisect.bisect_right(dated, d)]):
            known = [sym for k, sym in snapshots[snap] if k <= at]
            if known:
                key, now = (snap, len(known)), set(known)
                break
        if key != last_key:
            for sym in members - now:
                spells.setdefault(sym, []).append((open_since.pop(sym), previous))
            for sym in now - members:
                open_since[sym] = d
            members, last_key = now, key
        previous = d
    for sym, since in open_since.items():
        spells.setdefault(sym, []).append((since, days[-1]))
    return {sym: sorted(v) for sym, v in sorted(spells.items())}


# ---------------------------------------------------------------- day features


def _bar_symbols(lake: Lake, days: list[date], cutoff: datetime) -> list[str]:
    con = lake.duckdb(cutoff)
    try:
        rows = con.execute(
            "SELECT DISTINCT symbol FROM quotes WHERE trade_date BETWEEN ? AND ?",
            [days[0], days[-1]],
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]


def _write_features(
    lake: Lake,
    root: Path,
    days: list[date],
    cutoff: datetime,
    listed: Sequence[str],
    summary: QlibExport,
) -> dict[str, tuple[date, date]]:
    """Every symbol's day features; symbol → (first, last) session with a bar. A symbol
    whose bars the factors known at the cutoff do not cover is left out whole (the lake
    never serves adjusted prices unadjusted) and named in `summary.no_factor`."""
    with_bars = _bar_symbols(lake, days, cutoff)
    symbols = sorted({*listed, *with_bars})
    position = {d: i for i, d in enumerate(days)}
    spans: dict[str, tuple[date, date]] = {}
    unread: set[str] = set()  # symbols of a read that failed whole: gaps, not "no factor"
    for i in range(0, len(symbols), CHUNK):
        chunk = symbols[i : i + CHUNK]
        result = lake.quotes(chunk, start=days[0], end=days[-1], as_of=cutoff, adjust="hfq")
        summary.vouch(result, f"quotes (hfq) of {len(chunk)} symbols")
        if result.table is None or result.table.num_rows == 0:
            unread.update(chunk if result.status not in BENIGN_ANSWER else ())
            continue
        frame = result.table.to_pandas()
        for sym, bars in frame.groupby("symbol", sort=True):
            bars = bars[bars["trade_date"].isin(position)].sort_values("trade_date")
            if bars.empty:
                continue
            _write_symbol(root, str(sym), bars, position)
            spans[str(sym)] = (bars["trade_date"].iloc[0], bars["trade_date"].iloc[-1])
    summary.featured = len(spans)
    summary.no_factor = sorted(set(with_bars) - set(spans) - unread)
    return spans


def day_fields(bars: pd.DataFrame) -> dict[str, Any]:
    """qlib's day fields of one symbol's hfq bars (in date order), as float64 arrays."""
    import numpy as np

    factor = bars["adj_factor"].to_numpy("float64")
    close = bars["close"].to_numpy("float64")
    volume = bars["volume"].to_numpy("float64")
    amount = bars["amount"].to_numpy("float64")
    prev = np.concatenate([[np.nan], close[:-1]])
    if "pre_close" in bars.columns and len(close):
        prev[0] = float(bars["pre_close"].iloc[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        vwap = np.where(volume > 0, amount / volume * factor, np.nan)
        change = close / prev - 1.0
    return {
        "open": bars["open"].to_numpy("float64"),
        "high": bars["high"].to_numpy("float64"),
        "low": bars["low"].to_numpy("float64"),
        "close": close,
        "volume": volume / factor,
        "amount": amount,
        "vwap": vwap,
        "factor": factor,
        "change": change,
    }


def _write_symbol(root: Path, sym: str, bars: pd.DataFrame, position: dict[date, int]) -> None:
    import numpy as np

    at = np.array([position[d] for d in bars["trade_date"]])
    first, last = int(at[0]), int(at[-1])
    for name, values in day_fields(bars).items():
        column = np.full(last - first + 1, np.nan)
        column[at - first] = values
        fmt.write_feature(root, sym, name, first, column)


# ---------------------------------------------------------------- financials (PIT)


def _statement_versions(con: Any) -> pd.DataFrame:
    """Every consolidated statement version known at the cutoff, in version order."""
    items = ", ".join(LINE_ITEMS)
    return con.execute(
        f"SELECT symbol, statement, report_period, known_at, ingested_at, {items} "
        "FROM financials_versions WHERE report_type = ? "
        "ORDER BY symbol, statement, known_at, ingested_at",
        [CONSOLIDATED],
    ).fetchdf()


def first_sessions(lake: Lake, days: list[date], known: Iterable[datetime]) -> list[date | None]:
    """For each instant, the first session whose close is at or after it (the exported
    sessions, and the lake's calendar before them); None past the last exported session."""
    earlier = lake.trading_calendar.sessions_between(lake.trading_calendar.first, days[0])
    sessions = [d for d in earlier if d < days[0]] + list(days)
    closes = [session_close(d) for d in sessions]
    out: list[date | None] = []
    for at in known:
        i = bisect.bisect_left(closes, at)
        out.append(sessions[i] if i < len(sessions) else None)
    return out


def _write_statements(
    lake: Lake, root: Path, days: list[date], versions: pd.DataFrame, summary: QlibExport
) -> None:
    """One PIT file pair per (symbol, line item) with any value, from its statement's
    versions in version order (NaN versions kept: a newer period lacking the item is NaN in
    qlib as in the lake, never an older period's value)."""
    import numpy as np
    import pandas as pd

    if versions.empty:
        return
    known = pd.to_datetime(versions["known_at"], utc=True).dt.to_pydatetime()
    shown = first_sessions(lake, days, known)
    keep = np.array([d is not None for d in shown])
    versions = versions[keep].reset_index(drop=True)
    if versions.empty:
        return
    dates = np.array([d.year * 10000 + d.month * 100 + d.day for d in shown if d is not None])
    ends = pd.to_datetime(versions["report_period"])
    periods = (ends.dt.year * 100 + (ends.dt.month - 1) // 3 + 1).to_numpy("int64")
    values = versions[list(LINE_ITEMS)].to_numpy("float64")
    column = {item: i for i, item in enumerate(LINE_ITEMS)}
    groups = versions.groupby(["symbol", "statement"], sort=True).indices
    for (sym, statement), at in groups.items():
        at = np.sort(at)  # version order (the query sorted by known_at, ingested_at)
        for item, of in LINE_ITEMS.items():
            cells = values[at, column[item]]
            if of != statement or np.isnan(cells).all():
                continue
            records, index = fmt.pit_records(dates[at], periods[at], cells)
            fmt.write_pit(root, str(sym), f"{item}_q", records, index)
            summary.financial_fields += 1
            summary.financial_records += len(records)
