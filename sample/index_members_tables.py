"""The sample's index constituents (SYNTHETIC lists and weights), in both vendors' native shapes.

Tushare `index_weight`: monthly snapshots on the first session of each month in the window
(2025-04-01, 2025-05-06, 2025-06-03), newest first, weights in percent. AkShare csindex: the
*current* list only (dated 2025-06-30 in its 日期 column), with weights from the closeweight
file, except STAR 50, which has only the cons file (no weights): the fetcher's fallback.

Planted: a rebalance at the 2025-06-03 snapshot — `000002.SZ` leaves CSI 300 for CSI 500 and
`688981.SH` moves up from CSI 500 to CSI 300 — and CSI 1000, which holds none of the sample's
issuers (its fetches answer no rows: NO_DATA, never an empty OK list).
"""

from __future__ import annotations

import random
import zlib
from datetime import date

SNAPSHOTS = (date(2025, 4, 1), date(2025, 5, 6), date(2025, 6, 3))
REBALANCE = date(2025, 6, 3)
CURRENT_LIST_DATE = date(2025, 6, 30)  # the 日期 of AkShare's current lists

BEFORE: dict[str, tuple[str, ...]] = {
    "000300.SH": ("600519.SH", "601318.SH", "000001.SZ", "000002.SZ", "300750.SZ", "002594.SZ"),
    "000905.SH": ("688981.SH",),
    "000852.SH": (),
    "000016.SH": ("600519.SH", "601318.SH"),
    "000688.SH": ("688981.SH",),
}
AFTER: dict[str, tuple[str, ...]] = {
    **BEFORE,
    "000300.SH": ("600519.SH", "601318.SH", "000001.SZ", "688981.SH", "300750.SZ", "002594.SZ"),
    "000905.SH": ("000002.SZ",),
}
NO_WEIGHTS_FILE = ("000688.SH",)  # csindex serves its cons list only

INDEX_NAMES = {
    "000300.SH": ("沪深300", "CSI 300"),
    "000905.SH": ("中证500", "CSI 500"),
    "000852.SH": ("中证1000", "CSI 1000"),
    "000016.SH": ("上证50", "SSE 50"),
    "000688.SH": ("科创50", "SSE STAR 50"),
}
MEMBER_NAMES = {
    "600519.SH": ("贵州茅台", "Kweichow Moutai"),
    "601318.SH": ("中国平安", "Ping An Insurance"),
    "000001.SZ": ("平安银行", "Ping An Bank"),
    "000002.SZ": ("万科A", "China Vanke"),
    "300750.SZ": ("宁德时代", "CATL"),
    "002594.SZ": ("比亚迪", "BYD"),
    "688981.SH": ("中芯国际", "SMIC"),
}
EXCHANGES = {
    "SH": ("上海证券交易所", "Shanghai Stock Exchange"),
    "SZ": ("深圳证券交易所", "Shenzhen Stock Exchange"),
}


def members_on(index: str, day: date) -> tuple[str, ...]:
    return (AFTER if day >= REBALANCE else BEFORE)[index]


def weight(index: str, symbol: str, day: date) -> float:
    """A synthetic weight in percent, stable per (index, symbol, snapshot)."""
    rng = random.Random(zlib.crc32(f"{index}|{symbol}|{day}".encode()))
    return round(rng.uniform(0.5, 6.0), 4)


def tushare_index_weight() -> list[dict]:
    rows = []
    for day in sorted(SNAPSHOTS, reverse=True):
        for index in BEFORE:
            for symbol in members_on(index, day):
                rows.append(
                    {
                        "index_code": index,
                        "con_code": symbol,
                        "trade_date": day.strftime("%Y%m%d"),
                        "weight": weight(index, symbol, day),
                    }
                )
    return rows


def _csindex_rows(with_weights: bool) -> list[dict]:
    rows = []
    for index in BEFORE:
        if with_weights == (index in NO_WEIGHTS_FILE):
            continue
        for symbol in members_on(index, CURRENT_LIST_DATE):
            code, exchange = symbol.split(".")
            row = {
                "日期": CURRENT_LIST_DATE.isoformat(),
                "指数代码": index.split(".")[0],
                "指数名称": INDEX_NAMES[index][0],
                "指数英文名称": INDEX_NAMES[index][1],
                "成分券代码": code,
                "成分券名称": MEMBER_NAMES[symbol][0],
                "成分券英文名称": MEMBER_NAMES[symbol][1],
                "交易所": EXCHANGES[exchange][0],
                "交易所英文名称": EXCHANGES[exchange][1],
            }
            if with_weights:
                row["权重"] = weight(index, symbol, CURRENT_LIST_DATE)
            rows.append(row)
    return rows


def render(out: object) -> None:
    """Write the three tables through generate.py's `Out`."""
    out.rows("tushare", "index_weight", tushare_index_weight())  # type: ignore[attr-defined]
    out.rows("akshare", "index_stock_cons_weight_csindex", _csindex_rows(True))  # type: ignore[attr-defined]
    out.rows("akshare", "index_stock_cons_csindex", _csindex_rows(False))  # type: ignore[attr-defined]
