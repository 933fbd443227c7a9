"""Vendor-native AkShare frames (Chinese columns, datetime.date cells, factor strings) and a stub
client, so the adapter is tested on exactly the shapes akshare 1.19.5 returns (docs/vendor-reference.md
§2–§6) without any network."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd

from tests.vendors.stub_client import StubClient as BaseStubClient


class StubClient(BaseStubClient):
    vendor = "akshare"


def d(s: str) -> date:
    return date.fromisoformat(s)


# ---------------------------------------------------------------- bars


def em_bars(symbol: str, rows: list[tuple]) -> pd.DataFrame:
    """rows: (date, open, close, high, low, 成交量 手, 成交额 元, 涨跌幅 %, 换手率 %)."""
    return pd.DataFrame(
        [
            {
                "日期": d(r[0]),
                "股票代码": symbol,
                "开盘": r[1],
                "收盘": r[2],
                "最高": r[3],
                "最低": r[4],
                "成交量": r[5],
                "成交额": r[6],
                "振幅": 1.0,
                "涨跌幅": r[7],
                "涨跌额": 0.5,
                "换手率": r[8],
            }
            for r in rows
        ]
    )


EM_NO_DATA = pd.DataFrame()  # East Money kline "no data": a frame with no columns


def sina_bars(rows: list[tuple]) -> pd.DataFrame:
    """rows: (date, open, high, low, close, volume 股, amount 元, turnover fraction)."""
    return pd.DataFrame(
        [
            {
                "date": d(r[0]),
                "open": r[1],
                "high": r[2],
                "low": r[3],
                "close": r[4],
                "volume": r[5],
                "amount": r[6],
                "outstanding_share": 1.0e9,
                "turnover": r[7],
            }
            for r in rows
        ],
        columns=[
            "date",
            "open",
            "high",
            "low",
            "close",
            "volume",
            "amount",
            "outstanding_share",
            "turnover",
        ],
    )


def tencent_bars(rows: list[tuple]) -> pd.DataFrame:
    """rows: (date, open, close, high, low, volume as akshare returns it, turnover fraction,
    amount 元)."""
    return pd.DataFrame(
        [
            {
                "date": d(r[0]),
                "open": r[1],
                "close": r[2],
                "high": r[3],
                "low": r[4],
                "volume": r[5],
                "turnover": r[6],
                "amount": r[7],
            }
            for r in rows
        ],
        columns=["date", "open", "close", "high", "low", "volume", "turnover", "amount"],
    )


def sina_hfq_factors(points: list[tuple[str, str]]) -> pd.DataFrame:
    """Change points as akshare gives them: datetime64 dates, newest first, factor strings."""
    frame = pd.DataFrame(points, columns=["date", "hfq_factor"])
    frame["date"] = pd.to_datetime(frame["date"])
    return frame.sort_values("date", ascending=False, ignore_index=True)


# ---------------------------------------------------------------- statements


def em_statement(rows: list[dict[str, Any]], secucode: str = "600519.SH") -> pd.DataFrame:
    """East Money *_by_report_em rows: uppercase columns, dates 'YYYY-MM-DD 00:00:00'."""
    base = {
        "SECUCODE": secucode,
        "SECURITY_CODE": secucode[:6],
        "SECURITY_NAME_ABBR": "贵州茅台",
        "ORG_CODE": "10002602",
        "ORG_TYPE": "通用",
        "REPORT_TYPE": "年报",
        "SECURITY_TYPE_CODE": "058001001",
        "CURRENCY": "CNY",
    }
    return pd.DataFrame([{**base, **r} for r in rows])


def notice_report(codes: list[str], day: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "代码": codes,
            "名称": ["x"] * len(codes),
            "公告标题": ["2025年一季度报告"] * len(codes),
            "公告类型": ["一季度报告全文"] * len(codes),  # East Money column_name
            "公告日期": [d(day)] * len(codes),
            "网址": ["https://example.invalid"] * len(codes),
        },
        columns=["代码", "名称", "公告标题", "公告类型", "公告日期", "网址"],
    )


# ---------------------------------------------------------------- dragon-tiger

LHB_COLUMNS = [
    "序号",
    "代码",
    "名称",
    "上榜日",
    "解读",
    "收盘价",
    "涨跌幅",
    "龙虎榜净买额",
    "龙虎榜买入额",
    "龙虎榜卖出额",
    "龙虎榜成交额",
    "市场总成交额",
    "净买额占总成交比",
    "成交额占总成交比",
    "换手率",
    "流通市值",
    "上榜原因",
    "上榜后1日",
    "上榜后2日",
    "上榜后5日",
    "上榜后10日",
]


def lhb_row(code: str, day: str, reason: str, net: float = 1.0e7, **kw: Any) -> dict[str, Any]:
    row = {
        "序号": 1,
        "代码": code,
        "名称": "平安银行",
        "上榜日": d(day),
        "解读": "1家机构买入",
        "收盘价": 12.5,
        "涨跌幅": 10.02,
        "龙虎榜净买额": net,
        "龙虎榜买入额": 5.0e7,
        "龙虎榜卖出额": 5.0e7 - net,
        "龙虎榜成交额": 1.0e8 - net,
        "市场总成交额": 2.0e9,
        "净买额占总成交比": 0.5,
        "成交额占总成交比": 5.0,
        "换手率": 3.2,
        "流通市值": 2.4e11,
        "上榜原因": reason,
        "上榜后1日": 4.5,
        "上榜后2日": -1.2,
        "上榜后5日": 8.8,
        "上榜后10日": 12.0,
    }
    row.update(kw)
    return row


def lhb_detail(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=LHB_COLUMNS)


def lhb_seats(rows: list[tuple[str, float, float, str | None]]) -> pd.DataFrame:
    """rows: (branch, buy 元, sell 元, 类型) — no symbol, date or side column, as the vendor."""
    return pd.DataFrame(
        [
            {
                "序号": i + 1,
                "交易营业部名称": b,
                "买入金额": buy,
                "买入金额-占总成交比例": 1.0,
                "卖出金额": sell,
                "卖出金额-占总成交比例": 0.5,
                "净额": buy - sell,
                "类型": kind,
            }
            for i, (b, buy, sell, kind) in enumerate(rows)
        ]
    )


# ---------------------------------------------------------------- news and calendar


def stock_news(keyword: str, rows: list[tuple[str, str | None]]) -> pd.DataFrame:
    """rows: (新闻标题, 发布时间 naive Beijing string or None)."""
    return pd.DataFrame(
        [
            {
                "关键词": keyword,
                "新闻标题": t,
                "新闻内容": f"{t}（摘要）",
                "发布时间": when,
                "文章来源": "东方财富",
                "新闻链接": f"https://finance.eastmoney.com/a/{abs(hash(t)) % 10**8}.html",
            }
            for t, when in rows
        ],
        columns=["关键词", "新闻标题", "新闻内容", "发布时间", "文章来源", "新闻链接"],
    )


def global_news(rows: list[tuple[str, str | None]]) -> pd.DataFrame:
    """rows: (标题, 发布时间)."""
    return pd.DataFrame(
        [
            {"标题": t, "摘要": f"{t}。", "发布时间": when, "链接": "https://x.invalid"}
            for t, when in rows
        ],
        columns=["标题", "摘要", "发布时间", "链接"],
    )


def sina_calendar(days: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"trade_date": [d(s) for s in days]})
