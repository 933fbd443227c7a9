"""Baostock's field names and codes for pitlake's canonical columns (docs/vendor-reference.md,
Baostock §B.2–B.3). Which Baostock field carries a canonical column is said here and only here.
"""

from __future__ import annotations

from pitlake.schemas.financials import LINE_ITEMS

# query_history_k_data_plus: the daily fields asked for, and their canonical columns.
# volume 股 (shares), amount 元, pctChg and turn percent; preclose the 前收盘价 (the
# exchange's reference price, ex-rights on an ex-date).
K_FIELDS = (
    "date",
    "code",
    "open",
    "high",
    "low",
    "close",
    "preclose",
    "volume",
    "amount",
    "adjustflag",
    "turn",
    "tradestatus",
    "pctChg",
    "isST",
)
K_COLUMNS = {
    "date": "trade_date",
    "open": "open",
    "high": "high",
    "low": "low",
    "close": "close",
    "preclose": "pre_close",
    "volume": "volume",
    "amount": "amount",
    "pctChg": "pct_chg",
    "turn": "turnover_rate",
}
FREQUENCY_DAILY = "d"
# adjustflag: "1" 后复权 (hfq), "2" 前复权 (qfq), "3" 不复权 (raw) — quotes are raw.
ADJUST_NONE = "3"
TRADING = "1"  # tradestatus: "1" traded, "0" suspended (a row with the previous close)

# query_adjust_factor: one row per ex-date (dividOperateDate). backAdjustFactor is cumulative
# since listing (hfq = raw × factor, the dataset's meaning); foreAdjustFactor is relative to the
# latest ex-date, so it changes with every new one and is not point-in-time.
FACTOR_DATE = "dividOperateDate"
FACTOR_VALUE = "backAdjustFactor"
FACTOR_FIELDS = ("code", FACTOR_DATE, "foreAdjustFactor", FACTOR_VALUE, "adjustFactor")
FACTOR_HISTORY_START = "1990-12-19"  # the first SSE session: the whole series up to the window

# query_*_data: quarterly, cumulative within the year, one row per (code, statDate).
STATEMENT_ENDPOINTS: dict[str, str] = {
    "income": "query_profit_data",  # roeAvg npMargin gpMargin netProfit epsTTM MBRevenue …
    "balance": "query_balance_data",  # ratios only: currentRatio quickRatio liabilityToAsset …
    "cashflow": "query_cash_flow_data",  # ratios only: CFOToOR CFOToNP CAToAsset …
}
STATEMENT_DATES = ("code", "pubDate", "statDate")
REPORT_TYPE = "1"  # consolidated, cumulative (Tushare's code 1)

# canonical line item → Baostock field. Only fields that are that item: MBRevenue is 主营营业
# 收入 (not 营业收入), epsTTM is trailing twelve months (not the period's basic EPS); the balance
# and cash-flow answers hold ratios, no amounts. Everything else is kept in `extra`.
LINE_ITEM_FIELDS: dict[str, str] = {
    "net_profit": "netProfit",  # 净利润 (元)
}


def statement_fields(statement: str) -> dict[str, str]:
    """Baostock field → canonical item, for one statement (in LINE_ITEMS order)."""
    return {
        LINE_ITEM_FIELDS[item]: item
        for item, st in LINE_ITEMS.items()
        if st == statement and item in LINE_ITEM_FIELDS
    }
