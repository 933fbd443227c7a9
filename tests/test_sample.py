"""The bundled sample replay directory: formats, units, planted edge cases, determinism.

These read the raw vendor-native files with json/pandas only (no adapters), so a broken sample is
caught here rather than as a confusing failure somewhere downstream.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import pandas as pd
import pytest
from pitlake.schemas.financials import LINE_ITEMS

from pitlake.calendar import is_session, previous_session, sessions_between
from pitlake.symbols import parse
from pitlake.vendors.akshare.fields import LINE_ITEM_FIELDS as EM_FIELDS
from pitlake.vendors.tushare.fields import LINE_ITEM_FIELDS as TS_FIELDS

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample"
WINDOW = sessions_between("2025-04-01", "2025-06-30")
HOLIDAYS = [
    date(2025, 4, 4),
    *(date(2025, 5, d) for d in range(1, 6)),
    date(2025, 5, 31),
    date(2025, 6, 1),
    date(2025, 6, 2),
]
# Every issuer of the sample, from its security master (Tushare stock_basic, every status);
# those listed for the whole window trade every session of it.
_BASIC = [
    json.loads(line)
    for line in (SAMPLE / "tushare" / "stock_basic.jsonl").read_text(encoding="utf-8").splitlines()
]
SYMBOLS = [r["ts_code"] for r in _BASIC]
LISTED = {
    r["ts_code"]: date.fromisoformat(
        f"{r['list_date'][:4]}-{r['list_date'][4:6]}-{r['list_date'][6:]}"
    )
    for r in _BASIC
}
DELISTED = {
    r["ts_code"]: date.fromisoformat(
        f"{r['delist_date'][:4]}-{r['delist_date'][4:6]}-{r['delist_date'][6:]}"
    )
    for r in _BASIC
    if r["delist_date"]
}


def listed_sessions(sym: str) -> list[date]:
    """The window's sessions on which `sym` was listed (from its first trading day to the day
    before its delisting date)."""
    return [d for d in WINDOW if LISTED[sym] <= d < DELISTED.get(sym, date.max)]


SUSPENDED = ("000002.SZ", [date(2025, 5, 12), date(2025, 5, 13), date(2025, 5, 14)])
EX_DATE = ("600519.SH", date(2025, 6, 26))
ST = "600234.SH"

TUSHARE = [
    "daily",
    "adj_factor",
    "daily_basic",
    "income",
    "balancesheet",
    "cashflow",
    "disclosure_date",
    "top_list",
    "top_inst",
    "trade_cal",
    "stock_basic",
    "namechange",
    "suspend_d",
]
AKSHARE = [
    "stock_zh_a_hist",
    "stock_zh_a_daily",
    "stock_zh_a_daily@hfq-factor",
    "stock_zh_a_hist_tx",
    "stock_profit_sheet_by_report_em",
    "stock_balance_sheet_by_report_em",
    "stock_cash_flow_sheet_by_report_em",
    "stock_notice_report",
    "stock_news_em",
    "stock_info_global_em",
    "stock_lhb_detail_em",
    "stock_lhb_stock_detail_em",
    "tool_trade_date_hist_sina",
    "stock_info_sh_name_code",
    "stock_info_sz_name_code",
    "stock_info_bj_name_code",
    "stock_info_sh_delist",
    "stock_info_sz_delist",
    "stock_zh_a_st_em",
    "stock_tfp_em",
]


def rows(vendor: str, endpoint: str) -> list[dict]:
    path = SAMPLE / vendor / f"{endpoint}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def frame(vendor: str, endpoint: str) -> pd.DataFrame:
    return pd.DataFrame(rows(vendor, endpoint))


def ymd(d: date) -> str:
    return d.strftime("%Y%m%d")


def bare(ts_code: str) -> str:
    return ts_code[:6]


def prefixed(ts_code: str) -> str:
    return ts_code[7:].lower() + ts_code[:6]


# ------------------------------------------------------------------------- layout


def test_every_endpoint_file_is_present_and_tushare_news_is_not_permitted():
    for ep in TUSHARE:
        assert (SAMPLE / "tushare" / f"{ep}.jsonl").is_file(), ep
    for ep in AKSHARE:
        assert (SAMPLE / "akshare" / f"{ep}.jsonl").is_file(), ep
    for ep in ("news", "major_news"):
        err = json.loads((SAMPLE / "tushare" / f"{ep}.error.json").read_text())
        assert err == {"error": "permission_denied"}
        assert not (SAMPLE / "tushare" / f"{ep}.jsonl").exists()
    readme = (SAMPLE / "README.md").read_text(encoding="utf-8")
    assert "synthetic" in readme.lower()


def test_sample_is_small():
    total = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert total < 3 * 1024 * 1024


# ------------------------------------------------------------------------- quotes


def test_tushare_daily_format_sessions_and_order():
    df = frame("tushare", "daily")
    assert list(df.columns) == [
        "ts_code",
        "trade_date",
        "open",
        "high",
        "low",
        "close",
        "pre_close",
        "change",
        "pct_chg",
        "vol",
        "amount",
    ]
    assert df["trade_date"].str.fullmatch(r"\d{8}").all()
    days = {date(int(s[:4]), int(s[4:6]), int(s[6:])) for s in df["trade_date"]}
    assert days == set(WINDOW)
    assert all(is_session(d) for d in days)
    assert not {ymd(h) for h in HOLIDAYS} & set(df["trade_date"])
    assert sorted(df["ts_code"].unique()) == sorted(SYMBOLS)
    # newest first, and every symbol's own rows too
    assert df["trade_date"].is_monotonic_decreasing
    assert (df["low"] <= df[["open", "close"]].min(axis=1)).all()
    assert (df["high"] >= df[["open", "close"]].max(axis=1)).all()
    assert ((df["change"] - (df["close"] - df["pre_close"])).abs() < 0.006).all()


def test_every_symbol_trades_every_session_except_the_suspension():
    code, off = SUSPENDED
    df = frame("tushare", "daily")
    for sym in SYMBOLS:
        got = set(df.loc[df["ts_code"] == sym, "trade_date"])
        expected = {ymd(d) for d in listed_sessions(sym) if not (sym == code and d in off)}
        assert got == expected, sym


@pytest.mark.parametrize(
    ("vendor", "endpoint", "sym_col", "date_col", "render", "fmt"),
    [
        ("tushare", "daily", "ts_code", "trade_date", str, "%Y%m%d"),
        ("tushare", "daily_basic", "ts_code", "trade_date", str, "%Y%m%d"),
        ("akshare", "stock_zh_a_hist", "股票代码", "日期", bare, "%Y-%m-%d"),
        ("akshare", "stock_zh_a_daily", "_symbol", "date", prefixed, "%Y-%m-%d"),
        ("akshare", "stock_zh_a_hist_tx", "_symbol", "date", prefixed, "%Y-%m-%d"),
    ],
)
def test_suspension_and_holidays_have_no_rows(vendor, endpoint, sym_col, date_col, render, fmt):
    df = frame(vendor, endpoint)
    code, off = SUSPENDED
    mine = set(df.loc[df[sym_col] == render(code), date_col])
    assert mine, "the suspended symbol trades on other days"
    assert not {d.strftime(fmt) for d in off} & mine
    assert not {d.strftime(fmt) for d in HOLIDAYS} & set(df[date_col])
    # the day after the suspension ends has a row
    assert date(2025, 5, 15).strftime(fmt) in mine
    assert set(df[date_col]) == {d.strftime(fmt) for d in WINDOW}


def test_tushare_adj_factor_covers_every_session_including_suspension():
    df = frame("tushare", "adj_factor")
    assert list(df.columns) == ["ts_code", "trade_date", "adj_factor"]
    assert len(df) == sum(len(listed_sessions(s)) for s in SYMBOLS)
    assert df["trade_date"].is_monotonic_decreasing


def _bars() -> pd.DataFrame:
    """Tushare daily joined with EM, Sina and Tencent on (bare code, date)."""
    ts = frame("tushare", "daily")
    ts["code"], ts["day"] = ts["ts_code"].str[:6], pd.to_datetime(ts["trade_date"]).dt.date
    em = frame("akshare", "stock_zh_a_hist")
    em["code"], em["day"] = em["股票代码"], pd.to_datetime(em["日期"]).dt.date
    sina = frame("akshare", "stock_zh_a_daily").add_prefix("sina_")
    sina["code"], sina["day"] = (
        sina["sina__symbol"].str[2:],
        pd.to_datetime(sina["sina_date"]).dt.date,
    )
    tx = frame("akshare", "stock_zh_a_hist_tx").add_prefix("tx_")
    tx["code"], tx["day"] = tx["tx__symbol"].str[2:], pd.to_datetime(tx["tx_date"]).dt.date
    out = ts.merge(em, on=["code", "day"], validate="1:1")
    out = out.merge(sina, on=["code", "day"], validate="1:1")
    out = out.merge(tx, on=["code", "day"], validate="1:1")
    assert len(out) == len(ts) == len(em) == len(sina) == len(tx)
    return out


def test_vendor_units_agree_for_every_bar():
    b = _bars()
    for col, em_col, sina_col, tx_col in [
        ("open", "开盘", "sina_open", "tx_open"),
        ("close", "收盘", "sina_close", "tx_close"),
        ("high", "最高", "sina_high", "tx_high"),
        ("low", "最低", "sina_low", "tx_low"),
    ]:
        assert (b[col] == b[em_col]).all() and (b[col] == b[sina_col]).all()
        assert (b[col] == b[tx_col]).all()
    # Tushare vol 手 = EM 成交量 手; Sina volume 股 = 手 × 100
    assert (b["vol"] * 100 == b["成交量"] * 100).all()
    assert (b["sina_volume"] == b["vol"] * 100).all()
    # Tushare amount 千元 × 1000 ≈ EM 成交额 元 = Sina amount 元; Tencent from 万元 (±100 元)
    assert ((b["amount"] * 1000 - b["成交额"]).abs() <= 1).all()
    assert (b["sina_amount"] == b["成交额"]).all()
    assert ((b["tx_amount"] - b["成交额"]).abs() <= 100).all()
    # turnover: EM percent, Sina/Tencent fraction
    assert ((b["sina_turnover"] * 100 - b["换手率"]).abs() < 0.006).all()
    assert ((b["tx_turnover"] * 100 - b["换手率"]).abs() < 1e-6).all()
    assert ((b["涨跌额"] - b["change"]).abs() < 1e-9).all()
    assert ((b["涨跌幅"] - b["pct_chg"]).abs() < 0.006).all()


def test_tencent_volume_bug_lots_for_sz000_only():
    b = _bars()
    lots = b["tx__symbol"].str.startswith("sz000")
    assert set(b.loc[lots, "tx__symbol"]) == {prefixed(s) for s in SYMBOLS if s.startswith("000")}
    assert (b.loc[lots, "tx_volume"] == b.loc[lots, "vol"]).all()
    assert (b.loc[~lots, "tx_volume"] == b.loc[~lots, "vol"] * 100).all()


def test_daily_basic_units_match_the_bars():
    db = frame("tushare", "daily_basic")
    ts = frame("tushare", "daily")
    m = db.merge(ts, on=["ts_code", "trade_date"], suffixes=("", "_d"), validate="1:1")
    assert len(m) == len(db) == len(ts)
    assert (m["close"] == m["close_d"]).all()
    # 万股 / 万元
    assert ((m["total_mv"] - m["close"] * m["total_share"]).abs() / m["total_mv"] < 1e-6).all()
    assert ((m["circ_mv"] - m["close"] * m["float_share"]).abs() / m["circ_mv"] < 1e-6).all()
    # turnover_rate (percent) = vol 手 × 100 / (float_share 万股 × 10000) × 100
    rate = m["vol"] * 100 / (m["float_share"] * 10_000) * 100
    assert ((m["turnover_rate"] - rate).abs() < 1e-3).all()
    moutai = db[db["ts_code"] == "600519.SH"]["total_share"].iloc[0]
    assert 100_000 < moutai < 200_000  # 1.256 billion shares in 万股
    assert db.loc[db["ts_code"] == "000002.SZ", "pe"].isna().all()  # loss-making: no PE


def test_prices_stay_within_board_limits_and_st_is_5_percent():
    df = frame("tushare", "daily")
    first_days = {ymd(day) for day in LISTED.values()}
    for sym, g in df.groupby("ts_code"):
        g = g[~g["trade_date"].isin(first_days)]  # a first trading day has no limit
        limit = parse(sym).price_limit(date(2025, 6, 1), is_st=(sym == ST))
        move = (g["close"] - g["pre_close"]).abs()
        assert (move <= g["pre_close"] * limit + 0.0051).all(), sym
    st = df[df["ts_code"] == ST]
    assert (st["pct_chg"].abs() <= 5.1).all()
    assert (st["pct_chg"] > 4.9).sum() >= 3  # the planted limit-up run


def test_pre_close_is_the_previous_close_except_on_the_ex_date():
    df = frame("tushare", "daily").sort_values(["ts_code", "trade_date"])
    df["prev_close"] = df.groupby("ts_code")["close"].shift()
    df = df.dropna(subset=["prev_close"])
    differs = df[(df["pre_close"] - df["prev_close"]).abs() > 1e-9]
    got = set(zip(differs["ts_code"], differs["trade_date"], strict=True))
    assert ("600519.SH", "20250626") in got
    assert got <= {("600519.SH", "20250626"), ("000001.SZ", "20250612")}
    ex = df[(df["ts_code"] == "600519.SH") & (df["trade_date"] == "20250626")].iloc[0]
    assert ex["pre_close"] < ex["prev_close"] - 20  # 27.673 元 cash dividend per share


def test_ex_date_steps_tushare_adj_factor_and_sina_hfq_factor_alike():
    code, ex = EX_DATE
    daily = frame("tushare", "daily").set_index(["ts_code", "trade_date"])
    prev = ymd(previous_session(ex))
    ratio = daily.loc[(code, prev), "close"] / daily.loc[(code, ymd(ex)), "pre_close"]
    adj = frame("tushare", "adj_factor").set_index(["ts_code", "trade_date"])["adj_factor"]
    ts_step = adj[(code, ymd(ex))] / adj[(code, prev)]
    assert ts_step == pytest.approx(ratio, rel=2e-3)
    assert ts_step > 1.01
    # unchanged on every other day of the window
    series = adj.xs(code).sort_index()
    assert (series.diff().dropna() != 0).sum() == 1

    hfq = frame("akshare", "stock_zh_a_daily@hfq-factor")
    assert list(hfq.columns) == ["_symbol", "date", "hfq_factor"]
    mine = hfq[hfq["_symbol"] == prefixed(code)].reset_index(drop=True)
    assert mine["date"].iloc[0] == ex.isoformat()  # newest change point first
    assert mine["date"].iloc[-1] == "1900-01-01"
    factors = mine["hfq_factor"].astype(float)
    assert factors.iloc[0] / factors.iloc[1] == pytest.approx(ratio, rel=1e-9)
    # the two vendors' bases differ (never mix them), their steps agree
    assert factors.iloc[0] != pytest.approx(adj[(code, ymd(ex))], rel=1e-3)


def test_sina_hfq_factor_format():
    hfq = frame("akshare", "stock_zh_a_daily@hfq-factor")
    assert set(hfq["_symbol"]) == {prefixed(s) for s in SYMBOLS}
    assert hfq["hfq_factor"].map(type).eq(str).all()
    assert hfq["hfq_factor"].str.fullmatch(r"\d+\.\d{16}").all()
    for _, g in hfq.groupby("_symbol"):
        assert g["date"].iloc[-1] == "1900-01-01" and float(g["hfq_factor"].iloc[-1]) == 1.0
        assert list(g["date"].iloc[:-1]) == sorted(g["date"].iloc[:-1], reverse=True)


def test_akshare_tag_columns_and_symbol_forms():
    assert set(frame("akshare", "stock_zh_a_hist")["股票代码"]) == {bare(s) for s in SYMBOLS}
    assert set(frame("akshare", "stock_zh_a_daily")["_symbol"]) == {prefixed(s) for s in SYMBOLS}
    assert "bj920099" in set(frame("akshare", "stock_zh_a_hist_tx")["_symbol"])
    em = frame("akshare", "stock_zh_a_hist")
    assert list(em.columns) == [
        "日期",
        "股票代码",
        "开盘",
        "收盘",
        "最高",
        "最低",
        "成交量",
        "成交额",
        "振幅",
        "涨跌幅",
        "涨跌额",
        "换手率",
    ]
    assert em["日期"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert em["成交量"].map(type).eq(int).all()


# ------------------------------------------------------------------------- statements

STATEMENTS = {
    "income": ("income", "stock_profit_sheet_by_report_em"),
    "balance": ("balancesheet", "stock_balance_sheet_by_report_em"),
    "cashflow": ("cashflow", "stock_cash_flow_sheet_by_report_em"),
}
PERIODS = {"20240930", "20241231", "20250331"}


@pytest.mark.parametrize("statement", list(STATEMENTS))
def test_statement_columns_periods_and_units(statement):
    ts_ep, em_ep = STATEMENTS[statement]
    ts, em = frame("tushare", ts_ep), frame("akshare", em_ep)
    keys = [
        "ts_code",
        "ann_date",
        "f_ann_date",
        "end_date",
        "report_type",
        "comp_type",
        "end_type",
        "update_flag",
    ]
    assert set(keys) <= set(ts.columns)
    items = [(TS_FIELDS[k], EM_FIELDS[k]) for k, st in LINE_ITEMS.items() if st == statement]
    assert {t for t, _ in items} <= set(ts.columns)
    assert {e for _, e in items} <= set(em.columns)
    assert len(set(ts.columns) - set(keys) - {t for t, _ in items}) >= 2  # extra vendor fields
    assert any(c.endswith("_YOY") for c in em.columns)
    assert (ts["report_type"] == "1").all() and (ts["comp_type"] == "1").all()
    assert set(ts["update_flag"]) <= {"0", "1"}
    for sym in SYMBOLS:
        assert set(ts.loc[ts["ts_code"] == sym, "end_date"]) == PERIODS
    # East Money: exactly one row per period (its latest version)
    assert not em.duplicated(["SECUCODE", "REPORT_DATE"]).any()
    assert len(em) == len(SYMBOLS) * 3
    assert em["REPORT_DATE"].str.fullmatch(r"\d{4}-\d{2}-\d{2} 00:00:00").all()
    assert em["NOTICE_DATE"].dropna().str.fullmatch(r"\d{4}-\d{2}-\d{2} 00:00:00").all()
    # the same version has the same numbers at both vendors (元 at both)
    latest = ts[ts["update_flag"] == "1"].copy()
    latest["REPORT_DATE"] = pd.to_datetime(latest["end_date"]).dt.strftime("%Y-%m-%d 00:00:00")
    m = latest.merge(
        em, left_on=["ts_code", "REPORT_DATE"], right_on=["SECUCODE", "REPORT_DATE"], validate="1:1"
    )
    assert len(m) == len(em)
    for t, e in items:
        assert (m[t] == m[e]).all(), (t, e)
    if statement == "balance":
        assert (m["total_assets"] > 1e8).all()  # 元, not 万元


def test_tushare_restated_pair_with_identical_dates():
    inc = frame("tushare", "income")
    dup = inc[inc.duplicated(["ts_code", "end_date", "report_type"], keep=False)]
    pairs = dup.groupby(["ts_code", "end_date"])
    same_dates = [
        k
        for k, g in pairs
        if sorted(g["update_flag"]) == ["0", "1"]
        and g["ann_date"].nunique() == 1
        and g["f_ann_date"].nunique() == 1
    ]
    assert ("601318.SH", "20241231") in same_dates
    g = inc[(inc["ts_code"] == "601318.SH") & (inc["end_date"] == "20241231")]
    assert g["n_income_attr_p"].nunique() == 2  # different values


def test_correction_with_a_later_date_at_both_vendors():
    inc = frame("tushare", "income")
    later = inc[inc["f_ann_date"].notna() & (inc["f_ann_date"] > inc["ann_date"])]
    assert len(later) >= 1
    row = later.iloc[0]
    assert (row["ts_code"], row["ann_date"], row["f_ann_date"]) == (
        "688981.SH",
        "20250425",
        "20250610",
    )
    em = frame("akshare", "stock_profit_sheet_by_report_em")
    upd = em[em["UPDATE_DATE"] > em["NOTICE_DATE"]]
    assert list(zip(upd["SECUCODE"], upd["NOTICE_DATE"], upd["UPDATE_DATE"], strict=True)) == [
        ("688981.SH", "2025-04-25 00:00:00", "2025-06-10 00:00:00")
    ]
    assert upd["PARENT_NETPROFIT"].iloc[0] == row["n_income_attr_p"]  # EM shows the corrected
    notices = frame("akshare", "stock_notice_report")
    assert (
        (notices["代码"] == "688981")
        & (notices["公告日期"] == "2025-06-10")
        & (notices["_symbol"] == "财务报告")
    ).any()


def test_report_without_an_announcement_date():
    for ep in ("income", "balancesheet", "cashflow"):
        df = frame("tushare", ep)
        undated = df[df["ann_date"].isna()]
        assert list(zip(undated["ts_code"], undated["end_date"], strict=True)) == [
            ("920099.BJ", "20250331")
        ]
        assert undated["f_ann_date"].isna().all()
    em = frame("akshare", "stock_profit_sheet_by_report_em")
    undated = em[em["NOTICE_DATE"].isna()]
    assert list(undated["SECUCODE"]) == ["920099.BJ"]


def test_announcement_dates_are_realistic():
    inc = frame("tushare", "income").dropna(subset=["ann_date"])
    for end, lo, hi in [
        ("20240930", "20241001", "20241031"),
        ("20241231", "20250301", "20250430"),
        ("20250331", "20250401", "20250430"),
    ]:
        anns = inc.loc[inc["end_date"] == end, "ann_date"]
        assert anns.between(lo, hi).all(), end
    # Q1 never before the same company's annual report
    first = (
        inc[inc["update_flag"] == "1"]
        .pivot(index="ts_code", columns="end_date", values="ann_date")
        .dropna()
    )
    assert (first["20250331"] >= first["20241231"]).all()


def test_statements_announced_on_several_sessions_in_the_window():
    dd = frame("tushare", "disclosure_date")
    assert list(dd.columns) == [
        "ts_code",
        "ann_date",
        "end_date",
        "pre_date",
        "actual_date",
        "modify_date",
    ]
    actual = dd["actual_date"].dropna()
    in_window = sorted({a for a in actual if "20250401" <= a <= "20250630"})
    assert len(in_window) >= 5
    assert all(is_session(a) for a in in_window)
    notices = frame("akshare", "stock_notice_report")
    assert list(notices.columns)[:5] == ["代码", "名称", "公告标题", "公告类型", "公告日期"]
    fin = notices[notices["_symbol"] == "财务报告"]  # the category asked for (request tag)
    assert {a[:4] + "-" + a[4:6] + "-" + a[6:] for a in in_window} <= set(fin["公告日期"])
    assert (notices["_symbol"] != "财务报告").any()
    assert not (notices["公告类型"] == "财务报告").any()  # East Money's column_name, as live
    # every in-window Tushare announcement has a disclosure row and a notice on that day
    inc = frame("tushare", "income")
    for _, r in inc[inc["ann_date"].between("20250401", "20250630")].iterrows():
        assert ((dd["ts_code"] == r["ts_code"]) & (dd["actual_date"] == r["ann_date"])).any()
        day = f"{r['ann_date'][:4]}-{r['ann_date'][4:6]}-{r['ann_date'][6:]}"
        assert ((fin["代码"] == r["ts_code"][:6]) & (fin["公告日期"] == day)).any()


# ------------------------------------------------------------------------- news

TIME = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"


def test_news_edge_cases():
    news = frame("akshare", "stock_news_em")
    assert list(news.columns) == [
        "关键词",
        "新闻标题",
        "新闻内容",
        "发布时间",
        "文章来源",
        "新闻链接",
    ]
    assert news["关键词"].str.fullmatch(r"\d{6}").all()
    times = set(news["发布时间"])
    assert {"2025-06-03 23:59:00", "2025-06-04 00:01:00"} <= times
    assert "" in times  # an undated item
    assert news.loc[news["发布时间"] != "", "发布时间"].str.fullmatch(TIME).all()
    glob = frame("akshare", "stock_info_global_em")
    assert list(glob.columns) == ["标题", "摘要", "发布时间", "链接"]
    assert glob["发布时间"].str.fullmatch(TIME).all()
    both = news.merge(glob, left_on=["新闻标题", "发布时间"], right_on=["标题", "发布时间"])
    assert len(both) == 1  # one item carried by two feeds
    assert news["新闻内容"].str.contains("合成样本").all()


# ------------------------------------------------------------------------- dragon-tiger


def test_dragon_tiger_two_reasons_one_day_at_both_vendors():
    em = frame("akshare", "stock_lhb_detail_em")
    assert em["上榜日"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    for col in ("上榜后1日", "上榜后2日", "上榜后5日", "上榜后10日", "上榜原因", "龙虎榜净买额"):
        assert col in em.columns
    multi = em.groupby(["代码", "上榜日"])["上榜原因"].nunique()
    assert multi[("600234", "2025-04-10")] == 2
    top = frame("tushare", "top_list")
    assert top["trade_date"].str.fullmatch(r"\d{8}").all()
    mine = top[(top["ts_code"] == ST) & (top["trade_date"] == "20250410")]
    em_mine = em[(em["代码"] == "600234") & (em["上榜日"] == "2025-04-10")]
    assert set(mine["reason"]) == set(em_mine["上榜原因"]) and len(mine) == 2
    # same events, same numbers
    key = top.assign(
        code=top["ts_code"].str[:6], day=pd.to_datetime(top["trade_date"]).dt.strftime("%Y-%m-%d")
    )
    m = key.merge(
        em,
        left_on=["code", "day", "reason"],
        right_on=["代码", "上榜日", "上榜原因"],
        validate="1:1",
    )
    assert len(m) == len(top) == len(em)
    assert (m["net_amount"] == m["龙虎榜净买额"]).all() and (m["amount"] == m["市场总成交额"]).all()
    # listed days are sessions with a bar
    daily = frame("tushare", "daily")
    for _, r in top.iterrows():
        assert ((daily["ts_code"] == r["ts_code"]) & (daily["trade_date"] == r["trade_date"])).any()


def test_dragon_tiger_seats():
    inst = frame("tushare", "top_inst")
    assert inst["side"].map(type).eq(str).all() and set(inst["side"]) == {"0", "1"}
    both_sides = inst.groupby(["trade_date", "ts_code", "reason", "exalter"])["side"].nunique()
    assert (both_sides == 2).any()  # one branch among both the top buyers and sellers
    seats = frame("akshare", "stock_lhb_stock_detail_em")
    assert list(seats.columns) == [
        "_symbol",
        "_date",
        "_flag",
        "序号",
        "交易营业部名称",
        "买入金额",
        "买入金额-占总成交比例",
        "卖出金额",
        "卖出金额-占总成交比例",
        "净额",
        "类型",
    ]
    assert set(seats["_flag"]) == {"买入", "卖出"}
    assert seats["_date"].str.fullmatch(r"\d{8}").all()
    st = seats[(seats["_symbol"] == "600234") & (seats["_date"] == "20250410")]
    assert st["类型"].nunique() == 2
    # the same seats at both vendors
    ts_buy = inst[(inst["side"] == "0")].groupby("trade_date")["buy"].sum()
    em_buy = seats[seats["_flag"] == "买入"].groupby("_date")["买入金额"].sum()
    assert ts_buy.round(2).to_dict() == em_buy.round(2).to_dict()


# ------------------------------------------------------------------------- calendars


def test_tushare_trade_cal_is_every_day_of_2025_descending():
    cal = frame("tushare", "trade_cal")
    assert list(cal.columns) == ["exchange", "cal_date", "is_open", "pretrade_date"]
    assert (cal["exchange"] == "SSE").all()
    assert len(cal) == 365 and cal["cal_date"].is_monotonic_decreasing
    assert cal["cal_date"].iloc[0] == "20251231" and cal["cal_date"].iloc[-1] == "20250101"
    for _, r in cal.iterrows():
        assert bool(r["is_open"]) == is_session(r["cal_date"])
        assert r["pretrade_date"] == ymd(previous_session(r["cal_date"]))
    assert cal.set_index("cal_date").loc["20250602", "is_open"] == 0


def test_sina_trade_dates():
    cal = frame("akshare", "tool_trade_date_hist_sina")
    expected = [d.isoformat() for d in sessions_between("2024-01-01", "2025-12-31")]
    assert list(cal["trade_date"]) == expected


# ------------------------------------------------------------------------- names


def test_st_stock_is_named_st_wherever_names_appear():
    names = []
    names += list(frame("tushare", "top_list").query("ts_code == @ST")["name"])
    names += list(frame("akshare", "stock_lhb_detail_em").query("代码 == '600234'")["名称"])
    names += list(frame("akshare", "stock_notice_report").query("代码 == '600234'")["名称"])
    names += list(
        frame("akshare", "stock_profit_sheet_by_report_em").query("SECUCODE == @ST")[
            "SECURITY_NAME_ABBR"
        ]
    )
    assert len(names) >= 5
    assert all(re.match(r"^\*?ST", n) for n in names)


# ------------------------------------------------------------------------- determinism


def test_generator_is_deterministic(tmp_path):
    subprocess.run(
        [sys.executable, str(SAMPLE / "generate.py"), "--out", str(tmp_path)],
        check=True,
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    for vendor in ("tushare", "akshare"):
        committed = sorted(p.name for p in (SAMPLE / vendor).iterdir())
        fresh = sorted(p.name for p in (tmp_path / vendor).iterdir())
        assert committed == fresh, vendor
        for name in committed:
            assert (SAMPLE / vendor / name).read_bytes() == (
                tmp_path / vendor / name
            ).read_bytes(), f"{vendor}/{name} differs from a fresh run of sample/generate.py"


# ------------------------------------------------------------------------- security master


def test_the_security_master_agrees_at_both_vendors():
    """The exchanges' lists (AkShare) hold every issuer listed today, each with Tushare's
    listing date; the delisted one is on SZSE's delisting list with its delisting date."""
    listed_ak = {
        **{r["证券代码"]: r["上市日期"] for r in rows("akshare", "stock_info_sh_name_code")},
        **{r["A股代码"]: r["A股上市日期"] for r in rows("akshare", "stock_info_sz_name_code")},
        **{r["证券代码"]: r["上市日期"] for r in rows("akshare", "stock_info_bj_name_code")},
    }
    listed_ts = {bare(s): d.isoformat() for s, d in LISTED.items() if s not in DELISTED}
    assert listed_ak == listed_ts
    (gone,) = rows("akshare", "stock_info_sz_delist")
    assert gone["终止上市日期"] == DELISTED["000666.SZ"].isoformat() == "2025-06-23"
    assert rows("akshare", "stock_zh_a_st_em") == []  # no ST stock is left on the last day


def test_names_mark_st_designations_and_their_removal():
    names = frame("tushare", "namechange")
    st = names[names["name"].str.contains("ST")]
    assert set(zip(st["ts_code"], st["start_date"], strict=True)) == {
        ("600234.SH", "20240506"),
        ("000666.SZ", "20250425"),
    }
    removal = names[names["change_reason"] == "撤销ST"]
    assert list(removal["start_date"]) == ["20250616"] and list(removal["ann_date"]) == ["20250613"]


def test_suspension_rows_at_both_vendors():
    code, off = SUSPENDED
    ts = frame("tushare", "suspend_d")
    assert set(ts.loc[ts["suspend_type"] == "S", "trade_date"]) == {ymd(d) for d in off}
    assert list(ts.loc[ts["suspend_type"] == "R", "trade_date"]) == ["20250515"]
    ak = frame("akshare", "stock_tfp_em")
    assert set(ak["_date"]) == {ymd(d) for d in off} and set(ak["代码"]) == {bare(code)}
