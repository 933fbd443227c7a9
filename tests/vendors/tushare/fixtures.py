"""Vendor-native Tushare Pro frames and a stub client, so the adapter is tested on the shapes
tushare 1.4.29 returns (docs/vendor-reference.md §2.4–§6.3): `'YYYYMMDD'` strings, rows newest first,
vol in 手, amount in 千元, daily_basic shares in 万股 and caps in 万元."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from tests.vendors.stub_client import StubClient as BaseStubClient


class StubClient(BaseStubClient):
    vendor = "tushare"


def by_params(frame: pd.DataFrame, date_column: str = "trade_date") -> Callable[..., pd.DataFrame]:
    """Filter the way Tushare does: ts_code (comma list), trade_date, start/end on a date."""

    def answer(**params: Any) -> pd.DataFrame:
        f = frame
        if "ts_code" in params:
            f = f[f["ts_code"].isin(params["ts_code"].split(","))]
        if "trade_date" in params:
            f = f[f[date_column] == params["trade_date"]]
        if "start_date" in params:
            f = f[f[date_column] >= params["start_date"]]
        if "end_date" in params:
            f = f[f[date_column] <= params["end_date"]]
        return f.reset_index(drop=True)

    return answer


# ---------------------------------------------------------------- daily (手, 千元)

DAILY = pd.DataFrame(
    {
        "ts_code": ["600519.SH", "000001.SZ", "600519.SH", "000001.SZ"],
        "trade_date": ["20250604", "20250604", "20250603", "20250603"],
        "open": [1552.0, 11.52, 1538.0, 11.40],
        "high": [1565.5, 11.63, 1556.98, 11.55],
        "low": [1546.0, 11.46, 1530.0, 11.38],
        "close": [1560.0, 11.58, 1551.0, 11.50],
        "pre_close": [1551.0, 11.50, 1540.1, 11.41],
        "change": [9.0, 0.08, 10.9, 0.09],
        "pct_chg": [0.5803, 0.6957, 0.7078, 0.7888],
        "vol": [25_123.45, 1_203_456.0, 31_020.0, 998_765.0],  # 手
        "amount": [3_912_345.678, 1_391_234.5, 4_801_234.0, 1_143_210.9],  # 千元
    }
)

ADJ_FACTOR = pd.DataFrame(
    {
        "ts_code": ["600519.SH", "000001.SZ", "600519.SH", "000001.SZ"],
        "trade_date": ["20250604", "20250604", "20250603", "20250603"],
        "adj_factor": [8.4146, 127.7382, 8.2965, 127.7382],
    }
)

# ---------------------------------------------------------------- daily_basic (万股, 万元)

DAILY_BASIC = pd.DataFrame(
    {
        "ts_code": ["600519.SH", "000001.SZ"],
        "trade_date": ["20250603", "20250603"],
        "close": [1551.0, 11.50],
        "turnover_rate": [0.2469, 0.5147],
        "turnover_rate_f": [0.6339, 0.9172],
        "volume_ratio": [1.12, 0.87],
        "pe": [22.87, 4.63],
        "pe_ttm": [22.1, 4.71],
        "pb": [7.9, 0.52],
        "ps": [11.2, 1.55],
        "ps_ttm": [10.9, 1.58],
        "dv_ratio": [3.31, 6.13],
        "dv_ttm": [3.31, 6.13],
        "total_share": [125_619.78, 1_940_591.82],  # 万股
        "float_share": [125_619.78, 1_940_560.0],
        "free_share": [48_929.0, 1_089_400.0],
        "total_mv": [194_836_278.78, 22_316_805.93],  # 万元 = close × total_share
        "circ_mv": [194_836_278.78, 22_316_440.0],
    }
)

# ---------------------------------------------------------------- statements (元)


def statement_rows(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Statement rows with the columns the adapter asks for (comp_type/end_type as extras)."""
    base = {"comp_type": "1", "end_type": "4", "update_flag": "1"}
    return pd.DataFrame([{**base, **r} for r in rows])


def moutai_income() -> pd.DataFrame:
    """600519.SH income, newest first: FY2024 announced 2025-04-03 with a restated version
    (update_flag 1 beside 0, same dates, other values); Q3 2024 corrected on 2025-01-10 (a
    later f_ann_date); H1 2024 with no announcement date at all."""
    return statement_rows(
        [
            {
                "ts_code": "600519.SH",
                "ann_date": "20250403",
                "f_ann_date": "20250403",
                "end_date": "20241231",
                "report_type": "1",
                "update_flag": "1",
                "total_revenue": 174_144_069_958.25,
                "revenue": 170_899_152_276.34,
                "n_income": 89_334_727_869.52,
                "n_income_attr_p": 86_228_146_421.62,
                "basic_eps": 68.64,
                "ebit": float("nan"),
            },
            {
                "ts_code": "600519.SH",
                "ann_date": "20250403",
                "f_ann_date": "20250403",
                "end_date": "20241231",
                "report_type": "1",
                "update_flag": "0",
                "total_revenue": 174_144_069_958.25,
                "revenue": 170_899_152_276.34,
                "n_income": 89_334_727_869.52,
                "n_income_attr_p": 86_200_000_000.00,
                "basic_eps": 68.62,
                "ebit": float("nan"),
            },
            {
                "ts_code": "600519.SH",
                "ann_date": "20241026",
                "f_ann_date": "20250110",
                "end_date": "20240930",
                "report_type": 1,
                "update_flag": "1",
                "total_revenue": 120_966_129_086.89,
                "revenue": 117_564_062_316.02,
                "n_income": 62_412_356_891.0,
                "n_income_attr_p": 60_828_307_369.0,
                "basic_eps": 48.42,
                "ebit": 83_000_000_000.0,
            },
            {
                "ts_code": "600519.SH",
                "ann_date": None,
                "f_ann_date": None,
                "end_date": "20240630",
                "report_type": "1",
                "update_flag": "1",
                "total_revenue": 83_451_230_086.21,
                "revenue": 81_931_193_266.62,
                "n_income": 43_337_425_631.06,
                "n_income_attr_p": 41_695_829_540.48,
                "basic_eps": 33.19,
                "ebit": 58_000_000_000.0,
            },
        ]
    )


def balance_rows(ts_code: str, ann_date: str, end_date: str) -> pd.DataFrame:
    return statement_rows(
        [
            {
                "ts_code": ts_code,
                "ann_date": ann_date,
                "f_ann_date": ann_date,
                "end_date": end_date,
                "report_type": "1",
                "total_assets": 298_944_579_918.0,
                "total_liab": 57_874_460_573.0,
                "total_hldr_eqy_exc_min_int": 232_720_000_000.0,
                "money_cap": 59_295_822_671.0,
                "goodwill": None,
            }
        ]
    )


def cashflow_rows(ts_code: str, ann_date: str, end_date: str) -> pd.DataFrame:
    return statement_rows(
        [
            {
                "ts_code": ts_code,
                "ann_date": ann_date,
                "f_ann_date": ann_date,
                "end_date": end_date,
                "report_type": "1",
                "n_cashflow_act": 92_463_692_135.0,
                "n_cashflow_inv_act": -1_920_000_000.0,
                "n_cash_flows_fnc_act": -70_780_000_000.0,
                "free_cashflow": 88_000_000_000.0,
            }
        ]
    )


def disclosure(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    """disclosure_date rows: (ts_code, end_date, actual_date)."""
    return pd.DataFrame(
        [
            {"ts_code": c, "ann_date": "20250110", "end_date": p, "pre_date": a, "actual_date": a}
            for c, p, a in rows
        ]
    )


# ---------------------------------------------------------------- news

NEWS_COLUMNS = ["datetime", "content", "title"]


def news_frame(rows: list[tuple[str | None, str, str]]) -> pd.DataFrame:
    """news rows: (datetime 'YYYY-MM-DD HH:MM:SS' Beijing, content, title)."""
    return pd.DataFrame(rows, columns=NEWS_COLUMNS)


# ---------------------------------------------------------------- dragon-tiger

TOP_LIST = pd.DataFrame(
    {
        "trade_date": ["20250603", "20250603", "20250603"],
        "ts_code": ["600519.SH", "600519.SH", "000001.SZ"],
        "name": ["贵州茅台", "贵州茅台", "平安银行"],
        "close": [1551.0, 1551.0, 11.50],
        "pct_change": [0.7078, 0.7078, 10.01],
        "turnover_rate": [0.2469, 0.2469, 2.11],
        "amount": [4_801_234_000.0, 4_801_234_000.0, 1_143_210_900.0],  # 元 (assumed)
        "l_sell": [310_000_000.0, 310_000_000.0, 80_500_000.0],
        "l_buy": [420_000_000.0, 420_000_000.0, 150_200_000.0],
        "l_amount": [730_000_000.0, 730_000_000.0, 230_700_000.0],
        "net_amount": [110_000_000.0, 110_000_000.0, 69_700_000.0],
        "net_rate": [2.29, 2.29, 6.1],
        "amount_rate": [15.2, 15.2, 20.18],
        "float_values": [1.948e12, 1.948e12, 2.2316e11],
        "reason": [
            "日涨幅偏离值达到7%的前5只证券",
            "连续三个交易日内，涨幅偏离值累计达到20%的证券",
            "日涨幅偏离值达到7%的前5只证券",
        ],
    }
)

TOP_INST = pd.DataFrame(
    {
        "trade_date": ["20250603"] * 4,
        "ts_code": ["600519.SH", "600519.SH", "600519.SH", "000001.SZ"],
        "exalter": ["机构专用", "中信证券上海分公司", "机构专用", "深股通专用"],
        "side": ["1", "0", "0", 0],
        "buy": [0.0, 85_000_000.0, 120_000_000.0, 40_000_000.0],
        "buy_rate": [0.0, 1.77, 2.5, 3.5],
        "sell": [95_000_000.0, 1_200_000.0, 0.0, 2_000_000.0],
        "sell_rate": [1.98, 0.02, 0.0, 0.17],
        "net_buy": [-95_000_000.0, 83_800_000.0, 120_000_000.0, 38_000_000.0],
        "reason": ["日涨幅偏离值达到7%的前5只证券"] * 4,
    }
)

# ---------------------------------------------------------------- trade_cal (newest first)

TRADE_CAL = pd.DataFrame(
    {
        "exchange": ["SSE"] * 6,
        "cal_date": ["20250603", "20250602", "20250601", "20250531", "20250530", "20250529"],
        "is_open": ["1", "0", 0, "0", 1, "1"],
        "pretrade_date": ["20250530", "20250530", "20250530", "20250530", "20250529", "20250528"],
    }
)
