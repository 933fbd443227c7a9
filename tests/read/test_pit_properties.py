"""Point-in-time properties under random histories and random cutoffs (hypothesis):
- no returned row has known_at > cutoff (or ingested_at > as_ingested);
- each answer is exactly the newest version known at the cutoff (oracle: the stored versions);
- visibility is monotonic in the cutoff (same or later version, never fewer keys);
- the latest report never regresses to an older period when an old period is restated late;
- news windows hold exactly the items public in those Beijing days by the cutoff."""

from __future__ import annotations

import os
import tempfile
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from pitlake.calendar import BEIJING, session_close
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.pit import parse_cutoff
from pitlake.read.lake import Lake
from tests.lake.conftest import INGEST, bar, canonical, news_frame, news_item, statement_row

A, B = "600519.SH", "000001.SZ"
KEYS = [(A, date(2025, 6, 3)), (A, date(2025, 6, 4)), (B, date(2025, 6, 3))]
ORIGIN = datetime(2025, 6, 3, 12, 0, tzinfo=BEIJING)
FAR = datetime(2026, 12, 1, tzinfo=BEIJING)
# Bounded for the unit suite; raise PITLAKE_HYPOTHESIS_EXAMPLES for a deeper search.
SETTINGS = settings(
    max_examples=int(os.environ.get("PITLAKE_HYPOTHESIS_EXAMPLES", "20")), deadline=None
)


def _lake(root: Path) -> tuple[Lake, Catalog]:
    catalog = Catalog(f"sqlite:///{root / 'catalog.db'}")
    return Lake(root, catalog=catalog, clock=lambda: FAR), catalog


def _ts(value: Any) -> datetime:
    return pd.Timestamp(value).to_pydatetime()


# ---------------------------------------------------------------- quotes: random versions

version_events = st.lists(
    st.tuples(
        st.integers(0, len(KEYS) - 1),  # which key
        st.sampled_from([10.0, 10.5, 11.0, float("nan")]),  # close (NaN included)
        st.integers(0, 240),  # hours after the session close the vendor dates it
    ),
    min_size=1,
    max_size=7,
)
cutoff_hours = st.lists(st.integers(-6, 500), min_size=2, max_size=4, unique=True).map(sorted)


@SETTINGS
@given(events=version_events, hours=cutoff_hours, ingest_cut=st.none() | st.integers(0, 500))
def test_quotes_answer_the_newest_version_known_at_any_cutoff(
    events: list[tuple[int, float, int]], hours: list[int], ingest_cut: int | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = LakeStore(root)
        for i, (k, close, delay) in enumerate(events):
            sym, day = KEYS[k]
            frame = canonical("quotes", [bar(sym, day.isoformat(), close)])
            frame["known_at"] = pd.Timestamp(session_close(day) + timedelta(hours=delay))
            frame["known_at"] = frame["known_at"].astype("datetime64[us, UTC]")
            frame["known_at_basis"] = "session_close"
            # after every generated known_at (06-04 close + 240 h = ORIGIN + 267 h)
            ingested = ORIGIN + timedelta(hours=270 + 20 * i)
            store.write("quotes", frame, run_id=f"r{i}", ingested_at=ingested)
        stored = store.read_all("quotes")
        as_ingested = ORIGIN + timedelta(hours=ingest_cut) if ingest_cut is not None else None
        lake, catalog = _lake(root)
        previous: dict[tuple[str, str], datetime] = {}
        for h in hours:
            cutoff = ORIGIN + timedelta(hours=h)
            r = lake.quotes(
                [A, B], start="2025-06-03", end="2025-06-04", as_of=cutoff, as_ingested=as_ingested
            )
            got = {(d["symbol"], d["trade_date"]): d for d in r.data}
            visible = stored[stored["known_at"] <= pd.Timestamp(cutoff)]
            if as_ingested is not None:
                visible = visible[visible["ingested_at"] <= pd.Timestamp(as_ingested)]
            newest = visible.sort_values("known_at").groupby(["symbol", "trade_date"]).tail(1)
            expected = {
                (s, d.isoformat()): row
                for s, d, row in zip(
                    newest["symbol"], newest["trade_date"], newest.to_dict("records"), strict=True
                )
            }
            assert set(got) == set(expected)
            for key, row in got.items():
                known = datetime.fromisoformat(row["known_at"])
                assert known <= cutoff
                assert known == _ts(expected[key]["known_at"])
                exp_close = expected[key]["close"]
                assert row["close"] == (None if exp_close != exp_close else exp_close)
                if as_ingested is not None:
                    assert datetime.fromisoformat(row["ingested_at"]) <= as_ingested
                # monotonic: a later cutoff keeps the key, with the same or a later version
                if key in previous:
                    assert known >= previous[key]
            assert set(previous) <= set(got)
            previous = {k: datetime.fromisoformat(v["known_at"]) for k, v in got.items()}
        lake.close()
        catalog.close()


# ---------------------------------------------------------------- financials: late restatements

PERIODS = [
    date(2024, 3, 31),
    date(2024, 6, 30),
    date(2024, 9, 30),
    date(2024, 12, 31),
    date(2025, 3, 31),
]

reports = st.lists(
    st.tuples(
        st.integers(0, len(PERIODS) - 1),  # period
        st.integers(1, 119),  # days after the period end it is announced
        st.lists(st.tuples(st.integers(1, 400), st.integers(1, 9)), max_size=2),  # restatements
    ),
    min_size=1,
    max_size=5,
    unique_by=lambda t: t[0],
)
cutoff_days = st.lists(st.integers(0, 800), min_size=2, max_size=5, unique=True).map(sorted)


@SETTINGS
@given(plan=reports, days=cutoff_days)
def test_latest_report_never_regresses_to_an_older_period(
    plan: list[tuple[int, int, list[tuple[int, int]]]], days: list[int]
) -> None:
    rows = []
    for p, ann_after, restatements in plan:
        period = PERIODS[p]
        ann = period + timedelta(days=ann_after)
        rows.append(statement_row(A, period.isoformat(), ann.isoformat(), revenue=100.0 + p))
        for rev_after, value in restatements:
            rev = ann + timedelta(days=rev_after)
            rows.append(
                statement_row(
                    A,
                    period.isoformat(),
                    ann.isoformat(),
                    revision=rev.isoformat(),
                    revenue=float(value),
                )
            )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = LakeStore(root)
        store.write(
            "financials",
            canonical("financials", rows),
            run_id="r",
            ingested_at=FAR - timedelta(days=1),
        )
        stored = store.read_all("financials")
        lake, catalog = _lake(root)
        last_period = None
        for d in days:
            as_of = date(2024, 4, 1) + timedelta(days=d)
            cutoff = parse_cutoff(as_of)
            latest = lake.financials(A, as_of=as_of, latest_only=True)
            known = stored[stored["known_at"] <= pd.Timestamp(cutoff)]
            if known.empty:
                assert latest.data == []
                continue
            [row] = latest.data
            assert row["report_period"] == max(known["report_period"]).isoformat()
            assert datetime.fromisoformat(row["known_at"]) <= cutoff
            if last_period is not None:
                assert row["report_period"] >= last_period
            last_period = row["report_period"]
            # and every period shows its newest version known at the cutoff
            full = lake.financials(A, as_of=as_of)
            newest = known.sort_values("known_at").groupby("report_period").tail(1)
            assert {(d["report_period"], d["revenue"]) for d in full.data} == {
                (p.isoformat(), v)
                for p, v in zip(newest["report_period"], newest["revenue"], strict=True)
            }
        lake.close()
        catalog.close()


# ---------------------------------------------------------------- news windows

news_items = st.lists(
    st.tuples(st.none() | st.integers(0, 14 * 24 * 60), st.sampled_from([[A], [B], [A, B], []])),
    min_size=1,
    max_size=8,
)


@SETTINGS
@given(
    items=news_items,
    window=st.tuples(st.integers(0, 13), st.integers(0, 5)),
    cut_minutes=st.integers(0, 16 * 24 * 60),
    symbol=st.none() | st.sampled_from([A, B]),
)
def test_news_windows_hold_exactly_what_was_public(
    items: list[tuple[int | None, list[str]]],
    window: tuple[int, int],
    cut_minutes: int,
    symbol: str | None,
) -> None:
    base = datetime(2025, 6, 1, tzinfo=BEIJING)
    first_seen = base + timedelta(days=7)
    entries = [
        news_item(
            f"n{i}", f"title {i}", base + timedelta(minutes=m) if m is not None else None, syms
        )
        for i, (m, syms) in enumerate(items)
    ]
    start = (base + timedelta(days=window[0])).date()
    end = start + timedelta(days=window[1])
    cutoff = base + timedelta(minutes=cut_minutes)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = LakeStore(root)
        store.write(
            "news",
            news_frame(entries, fetched_at=first_seen),
            run_id="r",
            ingested_at=base + timedelta(days=15),
        )
        lake, catalog = _lake(root)
        r = lake.news(symbol, start=start, end=end, as_of=cutoff)
        expected = set()
        for e, (m, syms) in zip(entries, items, strict=True):
            known = e["published_at"] if m is not None else first_seen
            if (
                known <= cutoff
                and start <= known.astimezone(BEIJING).date() <= end
                and (symbol is None or symbol in syms)
            ):
                expected.add(e["news_id"])
        assert {d["news_id"] for d in r.data} == expected
        for d in r.data:
            assert datetime.fromisoformat(d["known_at"]) <= cutoff
        lake.close()
        catalog.close()


# ---------------------------------------------------------------- ranges sharing their end

RANGE_SESSIONS = [
    date(2025, 6, 3),
    date(2025, 6, 4),
    date(2025, 6, 5),
    date(2025, 6, 6),
    date(2025, 6, 9),
    date(2025, 6, 10),
    date(2025, 6, 11),
]
# What the lake knows about one session for symbol A: rows (ledger OK), a successful empty
# fetch (A absent from a whole-market OK, or NO_DATA), a failed or not-ready fetch, nothing.
OUTCOMES = ("rows", "absent", "no_data", "upstream_error", "not_ready", "never")
FETCHED = {"rows", "absent", "no_data"}
LEDGER_OF = {
    "rows": "OK",
    "absent": "OK",
    "no_data": "NO_DATA",
    "upstream_error": "UPSTREAM_ERROR",
    "not_ready": "NOT_READY",
}


@SETTINGS
@given(
    outcomes=st.lists(
        st.sampled_from(OUTCOMES), min_size=len(RANGE_SESSIONS), max_size=len(RANGE_SESSIONS)
    ),
    end=st.integers(0, len(RANGE_SESSIONS) - 1),
)
def test_ranges_sharing_their_end_agree_on_status_and_effective_session(
    outcomes: list[str], end: int
) -> None:
    """Every range ending on the same session names the same effective session (the latest
    fetched one at or before the end, wherever the range starts) and date status (STALE only
    when the end session was not fetched); their statuses agree whenever the sessions only
    the longer range covers were fetched (OK beside NO_DATA is rows, not a disagreement)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = LakeStore(root)
        lake, catalog = _lake(root)
        rows = [
            bar(A, d.isoformat(), 10.0)
            for d, o in zip(RANGE_SESSIONS, outcomes, strict=True)
            if o == "rows"
        ]
        rows += [bar(B, d.isoformat(), 20.0) for d in RANGE_SESSIONS]  # B always trades
        store.write("quotes", canonical("quotes", rows), run_id="r", ingested_at=INGEST)
        for d, o in zip(RANGE_SESSIONS, outcomes, strict=True):
            if o in LEDGER_OF:
                catalog.record_ledger("quotes", d, LEDGER_OF[o], rows=1, at=INGEST)
        last = RANGE_SESSIONS[end]
        fetched = [
            d
            for d, o in zip(RANGE_SESSIONS[: end + 1], outcomes[: end + 1], strict=True)
            if o in FETCHED
        ]
        expected_effective = fetched[-1].isoformat() if fetched else None
        starts = [None, *RANGE_SESSIONS[: end + 1]]  # None: the single session
        answers = [(s, lake.quotes(A, start=s, end=last, as_of="2025-06-30")) for s in starts]
        for _, r in answers:
            assert r.effective_trade_date == expected_effective, r.message
            if expected_effective is None:
                assert r.date_status.value == "UNKNOWN"
            elif expected_effective == last.isoformat():
                assert r.date_status.value == "CURRENT"
            else:
                assert r.date_status.value == "STALE"
        for i, (s1, r1) in enumerate(answers):
            for s2, r2 in answers[i + 1 :]:
                lo = s1 or last
                hi = s2 or last
                lo, hi = min(lo, hi), max(lo, hi)
                extra = [o for d, o in zip(RANGE_SESSIONS, outcomes, strict=True) if lo <= d < hi]
                if all(o in FETCHED for o in extra):
                    if r1.ok or r2.ok:
                        assert r1.ok and r2.ok, (s1, r1.status, s2, r2.status)
                    else:
                        assert r1.status == r2.status
        lake.close()
        catalog.close()
