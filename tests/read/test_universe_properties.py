"""Point-in-time properties of the universe (hypothesis): a delisted company is in the universe
on every day before its delisting date and on none after, whenever the delisting was fetched;
a name change is applied only once in force; no answered row is known after the cutoff."""

from __future__ import annotations

import tempfile
from datetime import date, datetime, time, timedelta
from pathlib import Path

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st
from pitlake.schemas.securities import finish, listing_rows, name_rows

from pitlake.calendar import BEIJING, sessions_between
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.pit import parse_cutoff
from pitlake.read.lake import Lake
from tests.lake.conftest import canonical
from tests.read.test_pit_properties import SETTINGS

GONE, STAYS = "600087.SH", "600519.SH"
DAYS = sessions_between("2025-04-01", "2025-06-30")
FAR = datetime(2026, 12, 1, tzinfo=BEIJING)


def _rows(delist: date, renamed: date, announced: date, fetched: datetime) -> pd.DataFrame:
    """What the Tushare fetcher would hand on, fetched at `fetched`: both listings, the
    delisting (closed listing, and its open version beside it), a name change."""
    s = pd.Series
    frame = finish(
        [
            listing_rows(
                s([GONE, STAYS]),
                s([date(1997, 6, 12), date(2001, 8, 27)]),
                s([delist, None]),
                s(["D", "L"]),
            ),
            name_rows(
                s([STAYS, STAYS]),
                s(["旧名", "新名"]),
                s([date(2001, 8, 27), renamed]),
                s([renamed - timedelta(days=1), None]),
                s([date(2001, 8, 27), announced]),
                s([None, "改名"]),
            ),
        ],
        fetched.date(),
    )
    return canonical("securities", frame.to_dict("records"), fetched_at=fetched)


@SETTINGS
@given(
    delist=st.sampled_from(DAYS[1:]),
    renamed=st.sampled_from(DAYS),
    ann_back=st.integers(0, 20),
    fetch_lag=st.integers(-30, 40),
    cutoffs=st.lists(
        st.tuples(st.sampled_from(DAYS), st.integers(0, 24 * 3600 - 1)), min_size=1, max_size=6
    ),
)
def test_delisted_before_not_after_and_nothing_after_the_cutoff(
    delist: date,
    renamed: date,
    ann_back: int,
    fetch_lag: int,
    cutoffs: list[tuple[date, int]],
) -> None:
    fetched = datetime.combine(delist + timedelta(days=fetch_lag), time(20, 0), tzinfo=BEIJING)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        LakeStore(root).write(
            "securities",
            _rows(delist, renamed, renamed - timedelta(days=ann_back), fetched),
            run_id="prop",
            ingested_at=fetched,
        )
        catalog = Catalog(f"sqlite:///{root / 'catalog.db'}")
        for d in DAYS:
            catalog.record_ledger("securities", d, "OK", rows=1, vendor="tushare")
        try:
            with Lake(root, catalog=catalog, clock=lambda: FAR) as lake:
                for day, second in cutoffs:
                    at = datetime.combine(day, time(0), tzinfo=BEIJING) + timedelta(seconds=second)
                    r = lake.universe(at.isoformat())
                    assert r.status == "OK", r.message
                    got = {d["symbol"]: d for d in r.data}
                    assert (GONE in got) is (day < delist), (day, delist, fetched)
                    assert got[STAYS]["name"] == ("新名" if day >= renamed else "旧名")
                    cutoff = parse_cutoff(at.isoformat())
                    assert all(datetime.fromisoformat(d["known_at"]) <= cutoff for d in r.data)
        finally:
            catalog.close()


def _interval(draw, first: date) -> tuple[date, date | None]:
    start = first + timedelta(days=draw(st.integers(0, 60)))
    length = draw(st.one_of(st.none(), st.integers(-2, 40)))  # a negative length: garbage
    return start, (None if length is None else start + timedelta(days=length))


def _listings(draw) -> list[tuple[date, date | None]]:
    """A code's listings: one after another (a delisting, then a re-listing), never two at
    once, as the exchanges list a code; and now and then a garbage interval (end before
    start) that is never in force."""
    out: list[tuple[date, date | None]] = []
    after = date(2025, 4, 1)
    for _ in range(draw(st.integers(0, 2))):
        start, end = _interval(draw, after)
        if end is not None and end < start:
            out.append((start, end))  # garbage: in force on no day
            continue
        out.append((start, end))
        if end is None:
            break
        after = end + timedelta(days=1)
    return out


@SETTINGS
@given(data=st.data())
def test_the_gates_window_of_states_is_the_view_day_by_day(data) -> None:
    """`gate_states` (interval arithmetic over a whole window) says what `universe_at` says
    day by day: each code's ST days while listed, and its first trading day in the window."""
    from pitlake.schemas.securities import LISTING, ST, gate_states, universe_at

    first = date(2025, 4, 1)
    rows = []
    for code in ("600000.SH", "600001.SH", "300750.SZ"):
        spans = [(LISTING, *span) for span in _listings(data.draw)]
        for _ in range(data.draw(st.integers(0, 3))):
            spans.append((ST, *_interval(data.draw, first)))
        for attribute, start, end in spans:
            rows.append(
                {
                    "symbol": code,
                    "attribute": attribute,
                    "start_date": start,
                    "end_date": end,
                    "name": None,
                    "board": "main",
                    "exchange": code[-2:],
                    "source": "tushare",
                    "known_at": FAR,
                }
            )
    frame = pd.DataFrame(
        rows,
        columns=[
            "symbol",
            "attribute",
            "start_date",
            "end_date",
            "name",
            "board",
            "exchange",
            "source",
            "known_at",
        ],
    )
    frame = frame.drop_duplicates(["symbol", "attribute", "start_date"], keep="last")
    days = data.draw(st.lists(st.sampled_from(DAYS[:45]), min_size=1, max_size=30, unique=True))
    want_st: dict[str, set[date]] = {}
    want_first: dict[str, date] = {}
    for d in sorted(days):
        view = universe_at(frame, d)
        for s in view.loc[view["is_st"].astype(bool), "symbol"]:
            want_st.setdefault(s, set()).add(d)
        for s, listed in zip(view["symbol"], view["list_date"], strict=True):
            if listed in set(days):
                want_first[s] = listed
    got_st, got_first = gate_states(frame, days)
    assert got_st == {s: frozenset(v) for s, v in want_st.items()}
    assert got_first == want_first
