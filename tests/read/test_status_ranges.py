"""Status semantics of trade-dated ranges (issue 13, items 2, 3, 6, 11, 12): the effective session
does not depend on where a range starts, whole-market questions over symbol-scoped fetches say
what they cover, long ranges summarise their gaps, and a corrupt file is a named LakeError."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
from pitlake.schemas import get as get_schema

from pitlake import schemas
from pitlake.calendar import XSHG
from pitlake.errors import LakeCorruptError
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.statuses import DateStatus, ResultStatus
from tests.lake.conftest import INGEST, bar, bj, canonical, write

A, B = "600519.SH", "000001.SZ"
# XSHG sessions after the Dragon Boat holiday
S = ["2025-06-03", "2025-06-04", "2025-06-05", "2025-06-06", "2025-06-09", "2025-06-10"]


def lhb(symbol: str, day: str) -> dict[str, Any]:
    return {"symbol": symbol, "trade_date": day, "reason": "日涨幅偏离值达7%", "close": 10.0}


# ---------------------------------------------------------------- item 2: the range's start


def test_a_dragon_tiger_range_answers_its_last_fetched_session_wherever_it_starts(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake
) -> None:
    """Rows on the first session, then successful empty fetches: the long range used to answer
    OK / STALE at the first session while the short one answered NO_DATA / CURRENT."""
    write(store, "dragon_tiger", [lhb(A, S[0])], source="akshare")
    sqlite_catalog.record_ledger("dragon_tiger", S[0], "OK", rows=1, at=INGEST)
    for d in S[1:]:
        sqlite_catalog.record_ledger("dragon_tiger", d, "NO_DATA", at=INGEST)
    long = lake.dragon_tiger(start=S[0], end=S[-1], as_of=S[-1])
    short = lake.dragon_tiger(start=S[2], end=S[-1], as_of=S[-1])
    assert long.status is ResultStatus.OK and len(long.data) == 1
    assert short.status is ResultStatus.NO_DATA and short.data == []
    for r in (long, short):
        assert r.effective_trade_date == S[-1] and r.date_status is DateStatus.CURRENT
        assert "not available" not in r.message


def test_per_symbol_the_range_answers_its_last_fetched_session(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake
) -> None:
    """A suspended after S[1] (B trades): every session was fetched, so the answer is current."""
    write(store, "quotes", [bar(s, d, 10.0) for d in S[:2] for s in (A, B)])
    write(store, "quotes", [bar(B, d, 11.0) for d in S[2:]])
    for d in S:
        sqlite_catalog.record_ledger("quotes", d, "OK", rows=2, at=INGEST)
    long = lake.quotes(A, start=S[0], end=S[-1], as_of=S[-1])
    short = lake.quotes(A, start=S[3], end=S[-1], as_of=S[-1])
    assert long.status is ResultStatus.OK and [d["trade_date"] for d in long.data] == S[:2]
    assert short.status is ResultStatus.NO_DATA
    for r in (long, short):
        assert r.effective_trade_date == S[-1] and r.date_status is DateStatus.CURRENT


def test_stale_only_when_the_latest_session_failed_and_then_the_last_fetched_one(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake
) -> None:
    """Rows on S[0], successful empty fetches S[1..3], failures after: every question ending
    at S[-1] points at S[3], including the single session (the look-back reads the ledger,
    not only the rows)."""
    write(store, "dragon_tiger", [lhb(A, S[0])], source="akshare")
    sqlite_catalog.record_ledger("dragon_tiger", S[0], "OK", rows=1, at=INGEST)
    for d in S[1:4]:
        sqlite_catalog.record_ledger("dragon_tiger", d, "NO_DATA", at=INGEST)
    for d in S[4:]:
        sqlite_catalog.record_ledger(
            "dragon_tiger", d, "UPSTREAM_ERROR", message="vendor 502", at=INGEST
        )
    answers = [
        lake.dragon_tiger(start=S[0], end=S[-1], as_of=S[-1]),
        lake.dragon_tiger(start=S[4], end=S[-1], as_of=S[-1]),
        lake.dragon_tiger(date=S[-1], as_of=S[-1]),
    ]
    for r in answers:
        assert r.status is ResultStatus.UPSTREAM_ERROR
        assert r.effective_trade_date == S[3] and r.date_status is DateStatus.STALE
        assert "UPSTREAM_ERROR" in r.message and "vendor 502" in r.message
        assert f"dragon_tiger for {S[-1]} are not available (UPSTREAM_ERROR)" in r.message


# ---------------------------------------------------------------- item 3: symbol-scoped fetches


def test_a_whole_market_question_over_failed_symbol_fetches_is_not_never_fetched(
    sqlite_catalog: Catalog, lake: Lake
) -> None:
    sqlite_catalog.record_ledger(
        "dragon_tiger", S[0], "UPSTREAM_ERROR", symbol=A, message="timeout", at=INGEST
    )
    sqlite_catalog.record_ledger("dragon_tiger", S[0], "NO_DATA", symbol=B, at=INGEST)
    r = lake.dragon_tiger(date=S[0], as_of=S[0])
    assert r.status is ResultStatus.UPSTREAM_ERROR and r.retryable is True
    assert "never fetched" not in r.message and "timeout" in r.message
    assert r.meta["coverage"]["symbols"] == [B, A]
    assert f"covers only {B}, {A}" in r.message


def test_a_whole_market_answer_from_symbol_fetches_says_which_symbols_it_covers(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake
) -> None:
    write(store, "dragon_tiger", [lhb(A, S[0])], source="akshare")
    sqlite_catalog.record_ledger("dragon_tiger", S[0], "OK", symbol=A, rows=1, at=INGEST)
    sqlite_catalog.record_ledger("dragon_tiger", S[0], "NO_DATA", symbol=B, at=INGEST)
    r = lake.dragon_tiger(date=S[0], as_of=S[0])
    assert r.status is ResultStatus.OK and len(r.data) == 1
    assert r.meta["coverage"]["symbols"] == [B, A]
    assert "not the whole market" in r.message and A in r.message and B in r.message
    # a whole-market fetch answers for itself: no coverage caveat
    sqlite_catalog.record_ledger("dragon_tiger", S[1], "NO_DATA", at=INGEST)
    whole = lake.dragon_tiger(date=S[1], as_of=S[1])
    assert whole.status is ResultStatus.NO_DATA and "coverage" not in whole.meta


def test_whole_market_news_over_failed_symbol_fetches_reports_the_failure(
    sqlite_catalog: Catalog, lake: Lake
) -> None:
    sqlite_catalog.record_ledger("news", S[0], "RATE_LIMITED", symbol=A, message="quota", at=INGEST)
    r = lake.news(start=S[0], end=S[0], as_of=S[1])
    assert r.status is ResultStatus.RATE_LIMITED
    assert "never fetched" not in r.message and A in r.message
    assert r.meta["coverage"]["symbols"] == [A]


# ---------------------------------------------------------------- item 12: long ranges


def test_a_range_from_2000_summarises_its_gaps_and_says_what_the_lake_holds(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake
) -> None:
    """Never fetched before 2025, failed fetches on every other session of 2025-01..05: the
    message summarises by status in a few hundred characters (it used to list gaps one by
    one), says what the lake holds, and meta keeps the runs, capped and saying so."""
    write(store, "quotes", [bar(A, d, 10.0) for d in S])
    for d in S:
        sqlite_catalog.record_ledger("quotes", d, "OK", rows=1, at=INGEST)
    failed = XSHG.sessions_between(date(2025, 1, 2), date(2025, 5, 30))[::2]
    for d in failed:
        sqlite_catalog.record_ledger("quotes", d, "UPSTREAM_ERROR", message="502", at=INGEST)
    before = XSHG.sessions_between(date(2000, 1, 4), date(2025, 5, 30))
    never = [d for d in before if d not in set(failed)]
    r = lake.quotes(A, start="2000-01-01", end=S[-1], as_of=S[-1])
    assert r.status is ResultStatus.UPSTREAM_ERROR and len(r.data) == len(S)
    assert len(r.message) < 700, r.message
    assert (
        f"UPSTREAM_ERROR for {A} on {len(failed)} session(s), {failed[0]}…{failed[-1]}" in r.message
    )
    assert f"UNKNOWN for {A} on {len(never):,} session(s), 2000-01-04…{never[-1]}" in r.message
    assert "never fetched" in r.message and "502" in r.message
    assert f"{len(S)} session(s), {S[0]}…{S[-1]}" in r.message  # what the lake holds
    summary = {s["status"]: s for s in r.meta["gap_summary"]}
    assert summary["UPSTREAM_ERROR"]["count"] == len(failed)
    assert summary["UNKNOWN"]["count"] == len(never)
    assert summary["UNKNOWN"]["first"] == "2000-01-04"
    assert summary["UNKNOWN"]["last"] == never[-1].isoformat()
    assert len(r.meta["gaps"]) == 50 and r.meta["gaps_capped"] is True
    assert r.meta["gaps_total"] > 2 * len(failed) - 2  # runs: failures between never-fetched
    assert r.meta["gaps"][0]["status"] == "UPSTREAM_ERROR"  # the most pressing first
    assert r.meta["coverage"] == {"first": S[0], "last": S[-1], "sessions": len(S)}


def test_consecutive_sessions_missing_for_one_reason_are_one_run(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake
) -> None:
    write(store, "quotes", [bar(A, S[0], 10.0)])
    for d in S:
        sqlite_catalog.record_ledger("quotes", d, "OK", rows=1, at=INGEST)
    r = lake.quotes(A, start=S[0], end=S[-1], as_of=S[-1])
    assert r.status is ResultStatus.OK and r.effective_trade_date == S[-1]
    [gap] = r.meta["gaps"]
    assert gap["status"] == "NO_DATA" and gap["date"] == S[1] and gap["until"] == S[-1]
    assert gap["sessions"] == len(S) - 1


def test_the_known_at_rule_runs_once_per_gap_analysis_not_once_per_session(
    lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A symbol with no rows over five years (a typo, a delisted code): the gap analysis used
    to run the known-at rule for each of its ~1,200 sessions (item 11, a second on a real lake;
    benchmarks/bench_gaps.py times it)."""
    calls = []
    spec = get_schema("quotes")
    real = spec.known_at

    def counted(frame: Any, fetched_at: Any) -> Any:
        calls.append(len(frame))
        return real(frame, fetched_at)

    monkeypatch.setitem(schemas.SCHEMAS, "quotes", dataclasses.replace(spec, known_at=counted))
    r = lake.quotes(A, start="2021-01-01", end="2025-12-30", as_of="2025-12-30")
    assert r.status is ResultStatus.UNKNOWN and r.meta["gap_summary"][0]["count"] > 1200
    assert len(r.meta["gaps"]) == 1  # one run of never-fetched sessions
    # a call or two (and a one-off check that the rule depends on the date alone), over a
    # handful of dates near the cutoff: not one call per session
    assert len(calls) <= 3 and sum(calls) <= 10, calls


# ---------------------------------------------------------------- item 6: a corrupt file


def test_a_corrupt_parquet_file_raises_a_named_lake_error(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake, lake_root: Path
) -> None:
    write(store, "quotes", [bar(A, d, 10.0) for d in S])
    for d in S:
        sqlite_catalog.record_ledger("quotes", d, "OK", rows=1, at=INGEST)
    [part] = sorted((lake_root / "curated" / "quotes").rglob("*.parquet"))
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2])  # a truncated write: no footer
    with pytest.raises(LakeCorruptError) as caught:
        lake.quotes(A, start=S[0], end=S[-1], as_of=S[-1])
    err = caught.value
    assert not isinstance(err, duckdb.Error)
    assert err.path == str(part) and str(part) in str(err)
    assert "\n" not in str(err)


def test_a_stored_row_the_cutoff_hides_is_not_ready_not_a_ledger_status(
    store: LakeStore, sqlite_catalog: Catalog, lake: Lake
) -> None:
    """The read itself reports the rows the cutoff hides (stored, dated later by the vendor,
    or ingested after `as_ingested`): their sessions are NOT_READY, never the ledger's OK read
    as "absent from a successful fetch"."""
    write(store, "quotes", [bar(A, S[0], 10.0)])
    late = canonical("quotes", [bar(A, S[1], 11.0)])
    late["known_at"] = pd.Timestamp(bj(S[3], "09:00")).tz_convert("UTC")
    late["known_at_basis"] = "published"
    write(store, "quotes", late, ingested_at=bj(S[3], "10:00"))
    for d in S[:2]:
        sqlite_catalog.record_ledger("quotes", d, "OK", rows=1, at=INGEST)
    r = lake.quotes(A, start=S[0], end=S[1], as_of=S[2])
    assert r.status is ResultStatus.NOT_READY and [d["trade_date"] for d in r.data] == [S[0]]
    [gap] = r.meta["gaps"]
    assert gap["date"] == S[1] and "public only after the as-of" in gap["reason"]
    assert r.effective_trade_date == S[0] and r.date_status is DateStatus.STALE
    seen = lake.quotes(A, start=S[0], end=S[1], as_of=S[3])
    assert seen.status is ResultStatus.OK and len(seen.data) == 2
    before_ingest = lake.quotes(A, start=S[0], end=S[1], as_of=S[3], as_ingested=bj(S[3], "09:30"))
    assert before_ingest.status is ResultStatus.NOT_READY
