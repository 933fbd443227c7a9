"""Contract tests of the Tushare adapter: vendor-native frames in, canonical rows out, with
units converted, known_at by the PIT rules, and typed errors for empty or garbage answers."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, date, datetime, timedelta

import pandas as pd
import pytest

from pitlake import schemas, units
from pitlake.calendar import BEIJING
from pitlake.errors import (
    InvalidArgumentsError,
    NoMarketDataError,
    VendorError,
    VendorPermissionError,
    VendorRateLimitError,
)
from pitlake.pit import KnownAtBasis
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.news_id import news_id, normalise_title
from pitlake.vendors.tushare import PLUGIN as TUSHARE
from pitlake.vendors.tushare import daily, statements
from pitlake.vendors.tushare.fetchers import financials as ts_financials
from pitlake.vendors.tushare.fetchers import news as ts_news
from tests.vendors.tushare.fixtures import (
    ADJ_FACTOR,
    DAILY,
    DAILY_BASIC,
    TOP_INST,
    TOP_LIST,
    TRADE_CAL,
    StubClient,
    balance_rows,
    by_params,
    cashflow_rows,
    disclosure,
    moutai_income,
    news_frame,
)

FETCHED = datetime(2025, 6, 4, 21, 0, tzinfo=BEIJING)
D = date(2025, 6, 3)


def bj(*args: int) -> pd.Timestamp:
    return pd.Timestamp(datetime(*args, tzinfo=BEIJING))


def fetch(routes: dict, **req):
    client = StubClient(routes)
    out = TUSHARE.adapter(client).fetch(FetchRequest(**req), FETCHED)
    return out, client


def assert_canonical(frame: pd.DataFrame, dataset: str) -> None:
    cols = schemas.get(dataset).columns
    assert list(frame.columns) == [*cols, "known_at", "known_at_basis", "source"]
    assert (frame["source"] == "tushare").all()
    assert str(frame["known_at"].dtype) == "datetime64[us, UTC]"


def row(frame: pd.DataFrame, **match) -> pd.Series:
    mask = pd.Series(True, index=frame.index)
    for k, v in match.items():
        mask &= frame[k] == v
    hit = frame[mask]
    assert len(hit) == 1, f"{len(hit)} rows match {match}"
    return hit.iloc[0]


# ---------------------------------------------------------------- quotes


def test_quotes_by_date_is_one_whole_market_call_with_units_converted() -> None:
    out, client = fetch({"daily": by_params(DAILY)}, dataset="quotes", trade_date=D)
    assert client.calls == [("daily", {"trade_date": "20250603"})]
    f = out.frame
    assert_canonical(f, "quotes")
    r = row(f, symbol="600519.SH")
    assert r["trade_date"] == D
    assert r["volume"] == pytest.approx(31_020.0 * 100)  # 手 → shares
    assert r["amount"] == pytest.approx(4_801_234.0 * 1000)  # 千元 → 元
    assert (r["open"], r["high"], r["low"], r["close"]) == (1538.0, 1556.98, 1530.0, 1551.0)
    assert (r["pre_close"], r["pct_chg"]) == (1540.1, 0.7078)
    assert pd.isna(r["turnover_rate"])
    assert r["known_at"] == bj(2025, 6, 3, 15, 0)
    assert r["known_at_basis"] == KnownAtBasis.SESSION_CLOSE
    assert set(f["symbol"]) == {"600519.SH", "000001.SZ"}


def test_quotes_by_date_for_listed_symbols_passes_a_ts_code_list() -> None:
    out, client = fetch(
        {"daily": by_params(DAILY)}, dataset="quotes", trade_date=D, symbols=("000001.SZ",)
    )
    assert client.calls == [("daily", {"trade_date": "20250603", "ts_code": "000001.SZ"})]
    assert list(out.frame["symbol"]) == ["000001.SZ"]


def test_quotes_range_with_symbols_is_one_ranged_call_per_symbol() -> None:
    out, client = fetch(
        {"daily": by_params(DAILY)},
        dataset="quotes",
        start=date(2025, 6, 1),
        end=date(2025, 6, 4),
        symbols=("600519.SH", "000001.SZ"),
    )
    assert client.calls == [
        ("daily", {"ts_code": "600519.SH", "start_date": "20250601", "end_date": "20250604"}),
        ("daily", {"ts_code": "000001.SZ", "start_date": "20250601", "end_date": "20250604"}),
    ]
    assert len(out.frame) == 4
    known = dict(zip(out.frame["trade_date"], out.frame["known_at"], strict=False))
    assert known[date(2025, 6, 4)] == bj(2025, 6, 4, 15, 0)


def test_long_ranges_are_split_under_the_row_cap() -> None:
    client = StubClient({"daily": by_params(DAILY)})
    req = FetchRequest(
        "quotes", start=date(2010, 1, 1), end=date(2025, 6, 4), symbols=("600519.SH",)
    )
    queries = TUSHARE.adapter(client).build_queries(req)
    assert len(queries) > 1
    spans = [(q.params["start_date"], q.params["end_date"]) for q in queries]
    assert spans[0][0] == "20100101" and spans[-1][1] == "20250604"
    for (_, hi), (lo, _) in itertools.pairwise(spans):  # contiguous, no overlap
        assert (pd.Timestamp(lo) - pd.Timestamp(hi)).days == 1
    for lo, hi in spans:
        assert (pd.Timestamp(hi) - pd.Timestamp(lo)).days < daily.RANGE_CALL_MAX_DAYS


def test_quotes_range_without_symbols_calls_each_session_by_date() -> None:
    # 2025-05-31..06-02 is the Dragon Boat holiday: no calls for those days.
    out, client = fetch(
        {"daily": by_params(DAILY)}, dataset="quotes", start=date(2025, 5, 30), end=date(2025, 6, 4)
    )
    assert [p["trade_date"] for _, p in client.calls] == ["20250530", "20250603", "20250604"]
    assert len(out.frame) == 4


def test_quotes_in_the_wrong_unit_are_rejected_not_stored() -> None:
    in_yuan = DAILY.assign(amount=DAILY["amount"] * 1000)  # vendor switched to 元
    with pytest.raises(VendorError, match="unit drift") as err:
        fetch({"daily": in_yuan}, dataset="quotes", trade_date=D)
    assert err.value.retryable is False


# ---------------------------------------------------------------- adj_factors, valuation


def test_adj_factors_known_at_the_ex_date_open() -> None:
    out, client = fetch(
        {"adj_factor": by_params(ADJ_FACTOR)}, dataset="adj_factors", trade_date=date(2025, 6, 4)
    )
    assert client.calls == [("adj_factor", {"trade_date": "20250604"})]
    assert_canonical(out.frame, "adj_factors")
    r = row(out.frame, symbol="600519.SH")
    assert r["adj_factor"] == 8.4146
    assert r["known_at"] == bj(2025, 6, 4, 9, 15)
    assert r["known_at_basis"] == KnownAtBasis.EX_DATE_OPEN


def test_valuation_converts_wan_shares_and_wan_yuan() -> None:
    out, client = fetch({"daily_basic": by_params(DAILY_BASIC)}, dataset="valuation", trade_date=D)
    assert client.calls == [("daily_basic", {"trade_date": "20250603"})]
    assert_canonical(out.frame, "valuation")
    r = row(out.frame, symbol="600519.SH")
    assert r["total_share"] == pytest.approx(125_619.78 * 10_000)
    assert r["free_share"] == pytest.approx(48_929.0 * 10_000)
    assert r["total_mv"] == pytest.approx(194_836_278.78 * 10_000)
    assert r["total_mv"] == pytest.approx(r["close"] * r["total_share"])
    assert (r["pe_ttm"], r["turnover_rate"], r["dv_ttm"]) == (22.1, 0.2469, 3.31)
    assert r["known_at"] == bj(2025, 6, 3, 15, 0)
    assert r["known_at_basis"] == KnownAtBasis.SESSION_CLOSE


def test_valuation_with_caps_in_yuan_is_unit_drift() -> None:
    drifted = DAILY_BASIC.assign(total_mv=units.wan_yuan_to_yuan(DAILY_BASIC["total_mv"]))
    with pytest.raises(VendorError, match="unit drift"):
        fetch({"daily_basic": drifted}, dataset="valuation", trade_date=D)


# ---------------------------------------------------------------- financials


def statement_routes(income: pd.DataFrame | None = None) -> dict:
    return {
        "income": by_params(income if income is not None else moutai_income(), "ann_date"),
        "balancesheet": by_params(balance_rows("600519.SH", "20250403", "20241231"), "ann_date"),
        "cashflow": by_params(cashflow_rows("600519.SH", "20250403", "20241231"), "ann_date"),
    }


def test_financials_per_symbol_ask_for_flags_dates_and_mapped_items() -> None:
    out, client = fetch(statement_routes(), dataset="financials", symbols=("600519.SH",))
    assert client.endpoints() == ["income", "balancesheet", "cashflow"]
    for _endpoint, params in client.calls:
        assert params["ts_code"] == "600519.SH"
        assert params["report_type"] == "1"
        assert "start_date" not in params and "ann_date" not in params  # whole history
        fields = params["fields"].split(",")
        for f in ("update_flag", "ann_date", "f_ann_date", "end_date", "report_type"):
            assert f in fields
    income_fields = client.calls[0][1]["fields"].split(",")
    assert {"n_income_attr_p", "total_revenue", "basic_eps"} <= set(income_fields)
    assert "total_assets" not in income_fields  # a balance-sheet item
    assert "total_assets" in client.calls[1][1]["fields"].split(",")
    assert_canonical(out.frame, "financials")
    assert set(out.frame["statement"]) == {"income", "balance", "cashflow"}


def test_financial_versions_are_dated_by_announcement_revision_deadline_or_first_seen() -> None:
    out, _ = fetch(statement_routes(), dataset="financials", symbols=("600519.SH",))
    f = out.frame[out.frame["statement"] == "income"]
    assert len(f) == 4  # every update_flag row kept

    original = row(f, report_period=date(2024, 12, 31), update_flag="0")
    assert original["known_at"] == bj(2025, 4, 3, 23, 59, 59, 999999)
    assert original["known_at_basis"] == KnownAtBasis.ANNOUNCEMENT
    assert not original["undated_revision"]
    assert original["net_profit_parent"] == 86_200_000_000.00

    restated = row(f, report_period=date(2024, 12, 31), update_flag="1")
    assert restated["undated_revision"]
    assert restated["known_at"] == pd.Timestamp(FETCHED)
    assert restated["known_at_basis"] == KnownAtBasis.FIRST_SEEN
    assert restated["net_profit_parent"] == 86_228_146_421.62

    corrected = row(f, report_period=date(2024, 9, 30))
    assert corrected["ann_date"] == date(2024, 10, 26)
    assert corrected["revision_date"] == date(2025, 1, 10)
    assert corrected["known_at"] == bj(2025, 1, 10, 23, 59, 59, 999999)
    assert corrected["known_at_basis"] == KnownAtBasis.REVISION
    assert corrected["report_type"] == "1"  # an int code from the vendor, stored as text

    undated = row(f, report_period=date(2024, 6, 30))
    assert undated["known_at"] == bj(2024, 8, 31, 23, 59, 59, 999999)
    assert undated["known_at_basis"] == KnownAtBasis.STATUTORY_DEADLINE


def test_financial_items_are_mapped_and_other_fields_kept_in_extra() -> None:
    out, _ = fetch(statement_routes(), dataset="financials", symbols=("600519.SH",))
    f = out.frame
    fy = row(f, statement="income", report_period=date(2024, 12, 31), update_flag="1")
    assert fy["revenue"] == 170_899_152_276.34
    assert fy["net_profit"] == 89_334_727_869.52
    assert fy["eps_basic"] == 68.64
    assert pd.isna(fy["total_assets"])  # another statement's item
    assert fy["extra"] == '{"comp_type": "1", "ebit": null, "end_type": "4"}'  # sorted, NaN→null
    bal = row(f, statement="balance")
    assert bal["total_liabilities"] == 57_874_460_573.0
    assert bal["equity_parent"] == 232_720_000_000.0
    assert json.loads(bal["extra"]) == {"comp_type": "1", "end_type": "4", "goodwill": None}
    cf = row(f, statement="cashflow")
    assert cf["net_cash_investing"] == -1_920_000_000.0
    assert json.loads(cf["extra"])["free_cashflow"] == 88_000_000_000.0


def test_identical_flag_pair_is_one_version_not_an_undated_revision() -> None:
    income = moutai_income()
    income.loc[1, "n_income_attr_p"] = income.loc[0, "n_income_attr_p"]
    income.loc[1, "basic_eps"] = income.loc[0, "basic_eps"]
    out, _ = fetch(
        statement_routes(income), dataset="financials", symbols=("600519.SH",), statement="income"
    )
    fy = out.frame[out.frame["report_period"] == date(2024, 12, 31)]
    assert list(fy["update_flag"]) == ["1"]
    assert not fy["undated_revision"].iloc[0]
    assert fy["known_at_basis"].iloc[0] == KnownAtBasis.ANNOUNCEMENT


def test_many_answers_normalised_together_equal_each_normalised_alone() -> None:
    """A reporting night's answers are normalised per endpoint in one batch; that batch must
    give exactly the rows of normalising each answer alone, and an extra field that is an int
    in one answer and missing (float NaN) in another must keep its own text per answer."""
    from pitlake.vendors.base import RawResponse, VendorQuery

    def answer(code: str, ann: str, period: str, comp_type: object) -> RawResponse:
        frame = balance_rows(code, ann, period).assign(comp_type=comp_type)
        query = VendorQuery("balancesheet", {"ts_code": code}, symbol=code, tag="balance")
        return RawResponse("tushare", query, frame, FETCHED)

    raws = [
        answer("600519.SH", "20250403", "20241231", 1),  # int64 extra field
        answer("000858.SZ", "20250429", "20250331", float("nan")),  # float64: a missing value
        answer("000001.SZ", "20250429", "20250331", 1),
    ]
    req = FetchRequest(dataset="financials", trade_date=date(2025, 4, 29))
    together = statements.financial_rows(req, raws)
    alone = pd.concat([statements.financial_rows(req, [r]) for r in raws], ignore_index=True)
    key = ["symbol", "report_period", "update_flag"]
    pd.testing.assert_frame_equal(
        together.sort_values(key).reset_index(drop=True),
        alone.sort_values(key).reset_index(drop=True),
    )
    extras = dict(zip(together["symbol"], together["extra"], strict=True))
    assert json.loads(extras["600519.SH"])["comp_type"] == 1  # not 1.0
    assert json.loads(extras["000858.SZ"])["comp_type"] is None


def _announcer_routes() -> dict:
    # 000858.SZ announced Q1 2025 on 2025-04-29 and, the same day, corrected FY2023.
    wuliangye = pd.concat(
        [
            balance_rows("000858.SZ", "20250429", "20250331"),
            balance_rows("000858.SZ", "20240426", "20231231").assign(f_ann_date="20250429"),
        ],
        ignore_index=True,
    )
    return {
        "disclosure_date": by_params(
            disclosure(
                [
                    ("000858.SZ", "20250331", "20250429"),
                    ("600519.SH", "20250331", "20250429"),
                    ("000858.SZ", "20241231", "20250429"),
                ]
            ),
            "actual_date",
        ),
        "income": by_params(moutai_income(), "ann_date"),
        "balancesheet": by_params(
            pd.concat([wuliangye, balance_rows("600519.SH", "20250429", "20250331")]), "ann_date"
        ),
        "cashflow": by_params(cashflow_rows("600519.SH", "20250429", "20250331"), "ann_date"),
    }


def test_nightly_financials_find_announcers_then_fetch_each_one() -> None:
    routes = _announcer_routes()
    out, client = fetch(routes, dataset="financials", trade_date=date(2025, 4, 29))
    assert client.calls[0] == ("disclosure_date", {"actual_date": "20250429"})
    per_announcer = sorted((e, p["ts_code"]) for e, p in client.calls[1:])  # calls overlap
    assert per_announcer == sorted(
        (e, code)
        for code in ("000858.SZ", "600519.SH")
        for e in ("income", "balancesheet", "cashflow")
    )
    assert out.calls == 7
    fy2023 = row(out.frame, symbol="000858.SZ", report_period=date(2023, 12, 31))
    assert fy2023["known_at"] == bj(2025, 4, 29, 23, 59, 59, 999999)  # the correction is caught
    assert fy2023["known_at_basis"] == KnownAtBasis.REVISION


def test_nightly_financials_with_no_announcers_is_no_data() -> None:
    routes = {**statement_routes(), "disclosure_date": disclosure([("600519.SH", "x", "y")])[:0]}
    with pytest.raises(NoMarketDataError):
        fetch(routes, dataset="financials", trade_date=date(2025, 4, 29))


def test_backfill_financials_fetch_whole_history_not_the_window() -> None:
    out, client = fetch(
        statement_routes(),
        dataset="financials",
        statement="income",
        start=date(2025, 4, 1),
        end=date(2025, 4, 30),
        symbols=("600519.SH",),
    )
    assert client.endpoints() == ["income"]
    assert set(client.calls[0][1]) == {"ts_code", "report_type", "fields"}
    periods = set(out.frame["report_period"])  # announced before the window, still there
    assert {date(2024, 6, 30), date(2024, 9, 30), date(2024, 12, 31)} <= periods


def test_backfill_financials_without_symbols_scans_each_day_for_announcers() -> None:
    routes = {
        **statement_routes(),
        "disclosure_date": by_params(
            disclosure([("600519.SH", "20241231", "20250403")]), "actual_date"
        ),
    }
    out, client = fetch(
        routes,
        dataset="financials",
        statement="income",
        start=date(2025, 4, 2),
        end=date(2025, 4, 4),
    )
    assert client.calls[:3] == [
        ("disclosure_date", {"actual_date": d}) for d in ("20250402", "20250403", "20250404")
    ]
    assert client.endpoints()[3:] == ["income"]
    assert len(out.frame) == 4


def test_more_report_types_are_one_call_each() -> None:
    client = StubClient(statement_routes())
    adapter = TUSHARE.adapter(client, report_types=("1", "2", "4"))
    queries = adapter.build_queries(
        FetchRequest("financials", symbols=("600519.SH",), statement="income")
    )
    assert [q.params["report_type"] for q in queries] == ["1", "2", "4"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"end_date": "20241130"}, "not a quarter end"),
        ({"end_date": None}, "no recognisable report period"),
        ({"end_date": "2024Q4"}, "is not a date"),
        ({"total_revenue": "n/a"}, "is not a number"),
    ],
)
def test_garbage_statements_are_rejected_whole(change: dict, message: str) -> None:
    income = moutai_income()
    for col, value in change.items():
        income[col] = income[col].astype(object)
        income.loc[0, col] = value
    with pytest.raises(VendorError, match=message) as err:
        fetch(statement_routes(income), dataset="financials", symbols=("600519.SH",))
    assert err.value.retryable is False
    assert type(err.value) is VendorError


def test_statement_without_a_period_column_is_schema_drift() -> None:
    income = moutai_income().drop(columns=["end_date"])
    with pytest.raises(VendorError, match=r"missing columns \['end_date'\]"):
        fetch(statement_routes(income), dataset="financials", symbols=("600519.SH",))


def test_bad_statement_name_fails_before_any_call() -> None:
    client = StubClient(statement_routes())
    with pytest.raises(InvalidArgumentsError):
        TUSHARE.adapter(client).fetch(
            FetchRequest("financials", symbols=("600519.SH",), statement="profit"), FETCHED
        )
    assert client.calls == []


# ---------------------------------------------------------------- news


def news_routes(sina: pd.DataFrame, major: pd.DataFrame | None = None) -> dict:
    empty = news_frame([])
    return {
        "news": lambda src, **_: sina if src == "sina" else empty,
        "major_news": major
        if major is not None
        else pd.DataFrame(columns=["title", "content", "pub_time", "src"]),
    }


def test_news_calls_each_source_and_major_news_for_the_beijing_day() -> None:
    sina = news_frame([("2025-06-03 10:30:00", "贵州茅台(600519.SH)公告分红方案。", "茅台分红")])
    out, client = fetch(news_routes(sina), dataset="news", trade_date=D)
    window = {"start_date": "2025-06-03 00:00:00", "end_date": "2025-06-03 23:59:59"}
    assert client.calls == [
        *(("news", {"src": s, **window}) for s in ts_news.NEWS_SOURCES),
        ("major_news", {**window, "fields": "title,content,pub_time,src"}),
    ]
    assert_canonical(out.frame, "news")
    r = out.frame.iloc[0]
    published = datetime(2025, 6, 3, 10, 30, tzinfo=BEIJING)
    assert r["news_id"] == news_id("茅台分红", published)
    assert r["published_at"] == pd.Timestamp(published)
    assert r["known_at"] == pd.Timestamp(published)
    assert r["known_at_basis"] == KnownAtBasis.PUBLISHED
    assert r["sources"] == ["tushare:sina"]
    assert r["symbols"] == ["600519.SH"]
    assert pd.isna(r["url"])


def test_same_item_in_two_feeds_is_one_row_listing_both() -> None:
    sina = news_frame(
        [
            ("2025-06-03 10:30:00", "正文A", "央行：下调 存款准备金率"),
            (None, "没有时间的快讯", "无时间快讯"),
            ("2025-06-03 11:00:00", "【快讯】只有正文，没有标题", ""),
        ]
    )
    major = pd.DataFrame(
        {
            "title": ["央行:下调存款准备金率"],
            "content": ["长文"],
            "pub_time": ["2025-06-03 10:30:00"],
            "src": ["新华网"],
        }
    )
    out, _ = fetch(news_routes(sina, major), dataset="news", trade_date=D)
    f = out.frame
    assert len(f) == 3
    merged = row(f, news_id=news_id("央行：下调 存款准备金率", datetime(2025, 6, 3, 10, 30)))
    assert merged["sources"] == ["tushare:sina", "tushare:新华网"]
    untimed = row(f, title="无时间快讯")
    assert pd.isna(untimed["published_at"])
    assert untimed["known_at"] == pd.Timestamp(FETCHED)
    assert untimed["known_at_basis"] == KnownAtBasis.FIRST_SEEN
    assert untimed["news_id"] == news_id("无时间快讯", None)
    titled_by_content = row(f, title="【快讯】只有正文，没有标题")
    assert titled_by_content["symbols"] == []


def test_a_news_answer_at_the_row_cap_is_split_in_half(monkeypatch) -> None:
    monkeypatch.setattr(ts_news, "NEWS_ROWS_PER_CALL", 2)
    calls: list[tuple[str, str]] = []

    def sina(src, start_date, end_date):
        calls.append((start_date, end_date))
        if src != "sina":
            return news_frame([])
        if len(calls) == 1:  # the whole day comes back at the cap
            return news_frame(
                [("2025-06-03 09:00:00", "a", "早间一"), ("2025-06-03 09:05:00", "b", "早间二")]
            )
        return (
            news_frame([("2025-06-03 18:00:00", "c", "晚间")])
            if start_date > ("2025-06-03 12")
            else news_frame([("2025-06-03 09:00:00", "a", "早间一")])
        )

    client = StubClient({"news": sina, "major_news": news_routes(news_frame([]))["major_news"]})
    adapter = TUSHARE.adapter(client, news_sources=("sina",))
    out = adapter.fetch(FetchRequest("news", trade_date=D), FETCHED)
    assert calls == [
        ("2025-06-03 00:00:00", "2025-06-03 23:59:59"),
        ("2025-06-03 00:00:00", "2025-06-03 11:59:59"),
        ("2025-06-03 12:00:00", "2025-06-03 23:59:59"),
    ]
    assert sorted(out.frame["title"]) == sorted(["早间一", "早间二", "晚间"])


def test_a_major_news_answer_at_its_400_row_cap_is_split_in_half(monkeypatch) -> None:
    monkeypatch.setattr(ts_news, "MAJOR_NEWS_ROWS_PER_CALL", 2)
    calls: list[dict] = []

    def major(**params):
        calls.append(params)
        rows = (
            [("早间一", "2025-06-03 09:00:00"), ("早间二", "2025-06-03 09:05:00")]
            if len(calls) == 1
            else [("晚间", "2025-06-03 18:00:00")]
            if params["start_date"] > "2025-06-03 12"
            else [("早间一", "2025-06-03 09:00:00")]
        )
        return pd.DataFrame(
            [{"title": t, "content": "正文", "pub_time": p, "src": "新华网"} for t, p in rows]
        )

    client = StubClient({"news": news_frame([]), "major_news": major})
    out = TUSHARE.adapter(client, news_sources=("sina",)).fetch(
        FetchRequest("news", trade_date=D), FETCHED
    )
    assert [(c["start_date"], c["end_date"]) for c in calls] == [
        ("2025-06-03 00:00:00", "2025-06-03 23:59:59"),
        ("2025-06-03 00:00:00", "2025-06-03 11:59:59"),
        ("2025-06-03 12:00:00", "2025-06-03 23:59:59"),
    ]
    assert all(c["fields"] == ts_news.MAJOR_NEWS_FIELDS for c in calls)
    assert sorted(out.frame["title"]) == sorted(["早间一", "早间二", "晚间"])


DENIED = (
    "抱歉，您没有访问该接口的权限，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"
)


def test_news_without_the_major_news_right_stores_news() -> None:
    sina = news_frame([("2025-06-03 10:30:00", "正文", "茅台分红")])
    denied = VendorPermissionError(DENIED, vendor="tushare", endpoint="major_news")
    out, client = fetch({**news_routes(sina), "major_news": denied}, dataset="news", trade_date=D)
    assert client.endpoints()[-1] == "major_news"
    assert list(out.frame["title"]) == ["茅台分红"]


def test_news_with_neither_right_is_permission_denied() -> None:
    denied = VendorPermissionError(DENIED, vendor="tushare")
    with pytest.raises(VendorPermissionError):
        fetch({"news": denied, "major_news": denied}, dataset="news", trade_date=D)


def test_a_denied_statement_endpoint_leaves_the_other_statements() -> None:
    routes = statement_routes()
    routes["cashflow"] = VendorPermissionError(DENIED, vendor="tushare", endpoint="cashflow")
    out, _ = fetch(routes, dataset="financials", symbols=("600519.SH",))
    assert set(out.frame["statement"]) == {"income", "balance"}


def test_a_denied_announcer_lookup_fails_the_fetch() -> None:
    routes = {**statement_routes(), "disclosure_date": VendorPermissionError(DENIED)}
    with pytest.raises(VendorPermissionError):
        fetch(routes, dataset="financials", trade_date=D)


def test_news_needs_a_date() -> None:
    with pytest.raises(InvalidArgumentsError):
        fetch(news_routes(news_frame([])), dataset="news")


def test_normalised_titles_ignore_width_case_space_and_punctuation() -> None:
    assert normalise_title("【央行】下调 存款准备金率！ABC") == normalise_title(
        "央行:下调存款准备金率abc"
    )
    assert normalise_title("Ｆｕｌｌ－ｗｉｄｔｈ") == "fullwidth"
    naive, aware = datetime(2025, 6, 3, 10, 30), datetime(2025, 6, 3, 2, 30, tzinfo=UTC)
    assert news_id("x", naive) == news_id("x", aware)  # naive = Beijing wall time
    assert news_id("x", naive) != news_id("x", naive + timedelta(minutes=1))
    assert news_id("x", None) != news_id("x", naive)
    assert len(news_id("x", None)) == 40


# ---------------------------------------------------------------- dragon-tiger


def test_dragon_tiger_rows_per_reason_with_seats_grouped() -> None:
    out, client = fetch(
        {"top_list": TOP_LIST, "top_inst": TOP_INST}, dataset="dragon_tiger", trade_date=D
    )
    assert client.calls == [
        ("top_list", {"trade_date": "20250603"}),
        ("top_inst", {"trade_date": "20250603"}),
    ]
    f = out.frame
    assert_canonical(f, "dragon_tiger")
    assert len(f) == 3
    moutai = f[f["symbol"] == "600519.SH"]
    assert len(moutai) == 2  # two reasons the same day
    r = row(f, symbol="600519.SH", reason="日涨幅偏离值达到7%的前5只证券")
    assert r["name"] == "贵州茅台"
    assert (r["buy_amount"], r["sell_amount"], r["net_buy"]) == (420e6, 310e6, 110e6)
    assert (r["billboard_amount"], r["market_amount"]) == (730e6, 4_801_234_000.0)
    assert (r["pct_chg"], r["float_mv"]) == (0.7078, 1.948e12)
    seats = json.loads(r["seats"])
    assert [s["side"] for s in seats] == ["buy", "buy", "sell"]  # buyers first, vendor order
    assert seats[0] == {
        "side": "buy",
        "branch": "中信证券上海分公司",
        "buy": 85_000_000.0,
        "sell": 1_200_000.0,
        "net": 83_800_000.0,
    }
    assert seats[2]["branch"] == "机构专用" and seats[2]["net"] == -95_000_000.0
    other_reason = row(
        f, symbol="600519.SH", reason="连续三个交易日内，涨幅偏离值累计达到20%的证券"
    )
    assert pd.isna(other_reason["seats"])  # top_inst named no seats for it
    assert json.loads(row(f, symbol="000001.SZ")["seats"])[0]["side"] == "buy"  # int side 0
    assert (f["known_at"] == bj(2025, 6, 3, 23, 59, 59, 999999)).all()
    assert (f["known_at_basis"] == KnownAtBasis.DAY_END).all()


def test_top_inst_without_permission_leaves_seats_null_but_keeps_rows() -> None:
    denied = VendorPermissionError(
        "抱歉，您没有访问该接口的权限", vendor="tushare", endpoint="top_inst"
    )
    out, client = fetch(
        {"top_list": TOP_LIST, "top_inst": denied}, dataset="dragon_tiger", trade_date=D
    )
    assert client.endpoints() == ["top_list", "top_inst"]
    assert len(out.frame) == 3
    assert out.frame["seats"].isna().all()


def test_top_list_failure_is_not_optional() -> None:
    limited = VendorRateLimitError("抱歉，您每分钟最多访问该接口500次", vendor="tushare")
    with pytest.raises(VendorRateLimitError):
        fetch({"top_list": limited, "top_inst": TOP_INST}, dataset="dragon_tiger", trade_date=D)
    denied = VendorPermissionError("抱歉，您没有访问该接口的权限", vendor="tushare")
    with pytest.raises(VendorPermissionError):
        fetch({"top_list": denied, "top_inst": TOP_INST}, dataset="dragon_tiger", trade_date=D)


def test_dragon_tiger_for_symbols_keeps_only_those() -> None:
    out, _ = fetch(
        {"top_list": TOP_LIST, "top_inst": TOP_INST},
        dataset="dragon_tiger",
        trade_date=D,
        symbols=("000001.SZ",),
    )
    assert list(out.frame["symbol"]) == ["000001.SZ"]


# ---------------------------------------------------------------- calendar


def test_calendar_maps_sse_to_xshg_and_is_open_to_bool() -> None:
    out, client = fetch(
        {"trade_cal": TRADE_CAL}, dataset="calendar", start=date(2025, 5, 29), end=date(2025, 6, 3)
    )
    assert client.calls == [
        ("trade_cal", {"exchange": "SSE", "start_date": "20250529", "end_date": "20250603"})
    ]
    f = out.frame
    assert_canonical(f, "calendar")
    assert set(f["exchange"]) == {"XSHG"}
    is_open = dict(zip(f["date"], f["is_open"], strict=True))
    assert is_open == {
        date(2025, 6, 3): True,
        date(2025, 6, 2): False,
        date(2025, 6, 1): False,
        date(2025, 5, 31): False,
        date(2025, 5, 30): True,
        date(2025, 5, 29): True,
    }
    assert f["is_open"].dtype == bool
    assert (f["known_at"] == pd.Timestamp(FETCHED)).all()


def test_calendar_with_an_unreadable_is_open_is_rejected() -> None:
    with pytest.raises(VendorError, match="is_open"):
        fetch({"trade_cal": TRADE_CAL.assign(is_open="maybe")}, dataset="calendar", trade_date=D)


# ---------------------------------------------------------------- empty and garbage answers


def test_column_less_frame_is_a_vendor_error_never_data() -> None:
    with pytest.raises(VendorError, match="no columns") as err:
        fetch({"daily": pd.DataFrame()}, dataset="quotes", trade_date=D)
    assert type(err.value) is VendorError
    assert err.value.retryable  # the SDK's answer to an HTTP error: worth a retry


def test_non_frame_answer_is_a_vendor_error() -> None:
    with pytest.raises(VendorError, match="NoneType"):
        fetch({"daily": lambda **_: None}, dataset="quotes", trade_date=D)


def test_missing_columns_are_schema_drift() -> None:
    with pytest.raises(VendorError, match=r"schema drift.*'vol'") as err:
        fetch({"daily": DAILY.drop(columns=["vol"])}, dataset="quotes", trade_date=D)
    assert err.value.retryable is False


def test_empty_answer_with_columns_is_no_data() -> None:
    with pytest.raises(NoMarketDataError) as err:
        fetch({"daily": by_params(DAILY)}, dataset="quotes", trade_date=date(2025, 6, 5))
    assert type(err.value) is NoMarketDataError
    assert err.value.endpoint == "daily"


def test_empty_answer_for_listed_symbols_is_no_data() -> None:
    with pytest.raises(NoMarketDataError) as err:
        fetch({"daily": by_params(DAILY)}, dataset="quotes", trade_date=D, symbols=("600000.SH",))
    assert type(err.value) is NoMarketDataError


def test_one_empty_symbol_among_several_does_not_fail_the_batch() -> None:
    def answer(**params):
        if params["ts_code"] == "600000.SH":
            raise NoMarketDataError("no rows", vendor="tushare", endpoint="daily")
        return by_params(DAILY)(**params)

    out, _ = fetch(
        {"daily": answer},
        dataset="quotes",
        start=date(2025, 6, 3),
        end=date(2025, 6, 4),
        symbols=("600000.SH", "600519.SH"),
    )
    assert set(out.frame["symbol"]) == {"600519.SH"}


def test_codes_that_are_not_a_shares_are_dropped() -> None:
    with_index = pd.concat(
        [DAILY, DAILY.iloc[[2]].assign(ts_code="000001.SH")], ignore_index=True
    )  # the SSE Composite, not a stock
    out, _ = fetch({"daily": by_params(with_index)}, dataset="quotes", trade_date=D)
    assert set(out.frame["symbol"]) == {"600519.SH", "000001.SZ"}


def test_the_adapter_serves_every_dataset() -> None:
    adapter = TUSHARE.adapter(StubClient({}))
    assert adapter.vendor == "tushare"
    assert all(adapter.supports(d) for d in schemas.DATASETS)


def test_a_clients_own_no_data_verdict_on_the_only_call_stands() -> None:
    no_rows = NoMarketDataError("no rows", vendor="tushare", endpoint="daily")
    with pytest.raises(NoMarketDataError) as err:
        fetch({"daily": no_rows}, dataset="quotes", trade_date=D)
    assert err.value is no_rows


def test_statement_calls_of_one_stage_run_concurrently_in_order() -> None:
    """A reporting night's per-announcer calls overlap (the quota, not latency, bounds
    them), and the canonical rows come out the same as one call at a time."""
    import threading
    import time as _time

    class Slow:
        vendor = "tushare"

        def __init__(self, inner) -> None:
            self.inner, self.now, self.peak = inner, 0, 0
            self.lock = threading.Lock()

        def call(self, endpoint, **params):
            with self.lock:
                self.now += 1
                self.peak = max(self.peak, self.now)
            _time.sleep(0.01)
            try:
                return self.inner.call(endpoint, **params)
            finally:
                with self.lock:
                    self.now -= 1

    req = FetchRequest("financials", trade_date=date(2025, 4, 29))
    serial = (
        TUSHARE.adapter(StubClient(_announcer_routes()), max_parallel=1).fetch(req, FETCHED).frame
    )
    slow = Slow(StubClient(_announcer_routes()))
    parallel = TUSHARE.adapter(slow, max_parallel=4).fetch(req, FETCHED).frame
    assert slow.peak > 1
    pd.testing.assert_frame_equal(serial, parallel)


# ---------------------------------------------------------------- statements normalised early


def _sim_financials(monkeypatch, batch: int, corrupt: str | None = None):
    """A reporting night's financials from the simulator (threads: answers arrive in any
    order), normalised in early batches of `batch` answers."""
    from benchmarks.simvendor import SimClient, SimMarket

    monkeypatch.setattr(ts_financials, "STATEMENT_BATCH", batch)
    sim = SimClient(SimMarket(n_symbols=400))

    class Corrupting:
        vendor = "tushare"

        def call(self, endpoint, **params):
            frame = sim.call(endpoint, **params)
            if corrupt and endpoint == "income" and params.get("ts_code") == corrupt:
                frame = frame.copy()
                frame.loc[frame.index[0], "end_date"] = "20250415"
            return frame

    adapter = TUSHARE.adapter(Corrupting(), max_parallel=4)
    return adapter.fetch(FetchRequest("financials", trade_date=date(2025, 4, 28)), FETCHED)


def test_statements_normalised_during_the_calls_give_the_same_rows_in_the_same_order(
    monkeypatch,
) -> None:
    whole = _sim_financials(monkeypatch, batch=10**6).frame  # one batch per group, at the end
    early = _sim_financials(monkeypatch, batch=3).frame
    assert len(whole) > 1000 and whole["symbol"].nunique() > 10
    pd.testing.assert_frame_equal(early, whole)


def test_a_garbage_answer_in_an_early_batch_fails_the_fetch_as_before(monkeypatch) -> None:
    first = _sim_financials(monkeypatch, batch=10**6).frame["symbol"].iloc[0]
    errors = []
    for batch in (10**6, 3):
        with pytest.raises(VendorError) as info:
            _sim_financials(monkeypatch, batch=batch, corrupt=first)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    assert "not a quarter end" in errors[0]
