"""Cutoffs, deadlines, Beijing-day windows and the per-dataset known-at rules."""

from datetime import date, datetime, timezone

import pandas as pd
import pytest

from pitlake import pit, schemas
from pitlake.calendar import BEIJING
from pitlake.errors import InvalidArgumentsError
from pitlake.pit import KnownAtBasis


# ---------------------------------------------------------------- cutoffs
def test_bare_date_means_end_of_beijing_day() -> None:
    c = pit.parse_cutoff("2025-06-03")
    assert c == datetime(2025, 6, 3, 23, 59, 59, 999999, tzinfo=BEIJING)
    assert pit.parse_cutoff("20250603") == c
    assert pit.parse_cutoff(date(2025, 6, 3)) == c


def test_aware_timestamp_is_exact() -> None:
    c = pit.parse_cutoff("2025-06-03T15:00+08:00")
    assert c == datetime(2025, 6, 3, 15, 0, tzinfo=BEIJING)
    assert pit.parse_cutoff("2025-06-03T07:00:00Z") == c


def test_naive_timestamp_is_beijing() -> None:
    assert pit.parse_cutoff("2025-06-03T15:00:00") == datetime(2025, 6, 3, 15, tzinfo=BEIJING)
    assert pit.parse_cutoff(datetime(2025, 6, 3, 15)) == datetime(2025, 6, 3, 15, tzinfo=BEIJING)


def test_none_is_now() -> None:
    now = datetime(2025, 6, 3, 1, 0, tzinfo=timezone.utc)
    assert pit.parse_cutoff(None, now=now) == now


@pytest.mark.parametrize("bad", ["", "  ", "now", "live", "2025-06-32", "2025-06-03T25:00", "0", 5])
def test_unparseable_cutoff_raises_never_live(bad: object) -> None:
    with pytest.raises(InvalidArgumentsError):
        pit.parse_cutoff(bad)  # type: ignore[arg-type]


def test_cutoff_separates_close_from_evening_announcements() -> None:
    cutoff = pit.parse_cutoff("2025-06-03T15:00+08:00")
    close = pd.DataFrame({"trade_date": [date(2025, 6, 3)]})
    known, _ = pit.rule_session_close(close, cutoff)
    assert known.iloc[0] <= pd.Timestamp(cutoff)
    evening, _ = pit.report_known_at("2025-03-31", ann_date=date(2025, 6, 3))
    assert evening > cutoff


# ---------------------------------------------------------------- deadlines
@pytest.mark.parametrize(
    ("period", "deadline"),
    [
        ("2025-03-31", date(2025, 4, 30)),
        ("2025-06-30", date(2025, 8, 31)),
        ("2025-09-30", date(2025, 10, 31)),
        ("2024-12-31", date(2025, 4, 30)),  # annual: rolls into the next year
    ],
)
def test_statutory_deadlines(period: str, deadline: date) -> None:
    assert pit.statutory_deadline(period) == deadline


@pytest.mark.parametrize("bad", ["2025-04-30", "2025-06-29", "2025-12-30"])
def test_non_quarter_end_period_rejected(bad: str) -> None:
    with pytest.raises(InvalidArgumentsError, match="quarter end"):
        pit.statutory_deadline(bad)


def test_report_known_at_rules() -> None:
    ann = date(2025, 3, 28)
    k, b = pit.report_known_at("2024-12-31", ann_date=ann)
    assert (k, b) == (pit.end_of_beijing_day(ann), KnownAtBasis.ANNOUNCEMENT)
    k, b = pit.report_known_at("2024-12-31", ann_date=ann, revision_date=date(2025, 6, 10))
    assert b is KnownAtBasis.REVISION and k.date() == date(2025, 6, 10)
    k, b = pit.report_known_at("2024-12-31", ann_date=ann, revision_date=ann)
    assert b is KnownAtBasis.ANNOUNCEMENT
    k, b = pit.report_known_at("2024-12-31")
    assert b is KnownAtBasis.STATUTORY_DEADLINE and k.date() == date(2025, 4, 30)


def test_is_report_known_by_announcement_else_deadline() -> None:
    assert not pit.is_report_known("2025-03-31", pit.parse_cutoff("2025-04-24"), date(2025, 4, 25))
    assert pit.is_report_known("2025-03-31", pit.parse_cutoff("2025-04-25"), date(2025, 4, 25))
    # no announcement date: unknowable before the deadline, known after it
    assert not pit.is_report_known("2025-03-31", pit.parse_cutoff("2025-04-29"))
    assert pit.is_report_known("2025-03-31", pit.parse_cutoff("2025-04-30"))
    # annual report deadline in the next year
    assert not pit.is_report_known("2024-12-31", pit.parse_cutoff("2025-04-29"))


# ---------------------------------------------------------------- news windows
def test_beijing_day_window_is_not_utc_day() -> None:
    lo, hi = pit.beijing_day_window("2025-06-03", "2025-06-03")
    assert lo == datetime(2025, 6, 2, 16, 0, tzinfo=timezone.utc)
    assert hi == datetime(2025, 6, 3, 16, 0, tzinfo=timezone.utc)
    at_2359 = datetime(2025, 6, 3, 23, 59, tzinfo=BEIJING)
    at_0001 = datetime(2025, 6, 4, 0, 1, tzinfo=BEIJING)
    assert lo <= at_2359 < hi
    assert not (lo <= at_0001 < hi)
    with pytest.raises(InvalidArgumentsError):
        pit.beijing_day_window("2025-06-04", "2025-06-03")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2025-06-03 23:59:00", datetime(2025, 6, 3, 23, 59, tzinfo=BEIJING)),
        ("2025-06-04T00:01:00+08:00", datetime(2025, 6, 4, 0, 1, tzinfo=BEIJING)),
        ("2025-06-03", pit.end_of_beijing_day(date(2025, 6, 3))),
        (datetime(2025, 6, 3, 9, 30), datetime(2025, 6, 3, 9, 30, tzinfo=BEIJING)),
        ("", None),
        (None, None),
        (float("nan"), None),
        ("not a time", None),
    ],
)
def test_parse_vendor_time(raw: object, expected: datetime | None) -> None:
    assert pit.parse_vendor_time(raw) == expected


# ---------------------------------------------------------------- vectorised rules
FETCHED = datetime(2025, 6, 10, 20, 0, tzinfo=BEIJING)


def _utc(d: datetime) -> pd.Timestamp:
    return pd.Timestamp(d).tz_convert("UTC")


def test_trade_date_rules() -> None:
    f = pd.DataFrame({"trade_date": [date(2025, 6, 3)]})
    out = pit.apply_known_at(schemas.get("quotes").known_at, f, FETCHED)
    assert out["known_at"].iloc[0] == _utc(datetime(2025, 6, 3, 15, tzinfo=BEIJING))
    assert out["known_at_basis"].iloc[0] == "session_close"
    assert str(out["known_at"].dtype) == "datetime64[us, UTC]"
    out = pit.apply_known_at(schemas.get("adj_factors").known_at, f, FETCHED)
    assert out["known_at"].iloc[0] == _utc(datetime(2025, 6, 3, 9, 15, tzinfo=BEIJING))
    assert out["known_at_basis"].iloc[0] == "ex_date_open"
    out = pit.apply_known_at(schemas.get("dragon_tiger").known_at, f, FETCHED)
    assert out["known_at"].iloc[0] == _utc(pit.end_of_beijing_day(date(2025, 6, 3)))
    assert out["known_at_basis"].iloc[0] == "day_end"


def test_news_rule_published_else_first_seen() -> None:
    f = pd.DataFrame({"published_at": [pd.Timestamp("2025-06-03 23:59", tz=BEIJING), pd.NaT]})
    out = pit.apply_known_at(schemas.get("news").known_at, f, FETCHED)
    assert out["known_at_basis"].tolist() == ["published", "first_seen"]
    assert out["known_at"].iloc[1] == _utc(FETCHED)


def test_financials_rule_every_basis() -> None:
    f = pd.DataFrame(
        {
            "report_period": [date(2024, 12, 31)] * 3 + [date(2025, 3, 31)],
            "ann_date": [date(2025, 3, 28), date(2025, 3, 28), date(2025, 3, 28), None],
            "revision_date": [None, date(2025, 6, 5), None, None],
            "undated_revision": [False, False, True, False],
        }
    )
    out = pit.apply_known_at(schemas.get("financials").known_at, f, FETCHED)
    assert out["known_at_basis"].tolist() == [
        "announcement",
        "revision",
        "first_seen",
        "statutory_deadline",
    ]
    eod = pit.end_of_beijing_day
    assert out["known_at"].tolist() == [
        _utc(eod(date(2025, 3, 28))),
        _utc(eod(date(2025, 6, 5))),
        _utc(FETCHED),
        _utc(eod(date(2025, 4, 30))),
    ]


def test_financials_rule_rejects_non_quarter_end() -> None:
    f = pd.DataFrame(
        {"report_period": [date(2025, 4, 30)], "ann_date": [None], "revision_date": [None]}
    )
    with pytest.raises(InvalidArgumentsError, match="quarter end"):
        pit.apply_known_at(schemas.get("financials").known_at, f, FETCHED)


def test_rules_cover_every_dataset() -> None:
    from pitlake import schemas

    assert all(callable(schemas.get(d).known_at) for d in schemas.DATASETS)


def test_iso_beijing() -> None:
    assert pit.iso_beijing(datetime(2025, 6, 3, 7, tzinfo=timezone.utc)) == (
        "2025-06-03T15:00:00+08:00"
    )
    assert pit.iso_beijing(None) is None
    assert pit.iso_beijing(pd.Timestamp("2025-06-03 07:00", tz="UTC")).endswith("+08:00")


def test_latest_admissible_known_at_by_basis() -> None:
    ingest = datetime(2025, 6, 3, 18, 30, tzinfo=BEIJING)
    basis = pd.Series(["day_end", "announcement", "session_close", "published", "first_seen"])
    limit = pit.latest_admissible_known_at(basis, ingest)
    eod = _utc(pit.end_of_beijing_day(date(2025, 6, 3)))
    assert limit.tolist() == [eod, eod, _utc(ingest), _utc(ingest), _utc(ingest)]


def test_undated_report_seen_before_its_deadline_is_first_seen() -> None:
    f = pd.DataFrame(
        {"report_period": [date(2025, 3, 31)], "ann_date": [None], "revision_date": [None]}
    )
    early = datetime(2025, 4, 20, 21, 0, tzinfo=BEIJING)
    out = pit.apply_known_at(schemas.get("financials").known_at, f, early)
    assert out["known_at_basis"].iloc[0] == "first_seen"
    assert out["known_at"].iloc[0] == _utc(early)
    late = pit.apply_known_at(
        schemas.get("financials").known_at, f, FETCHED
    )  # fetched after the deadline
    assert late["known_at_basis"].iloc[0] == "statutory_deadline"
