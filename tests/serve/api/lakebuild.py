"""A small, fully known lake for the query-API tests: canonical rows written with LakeStore and
ledger entries recorded in the lake's own catalog (`<lake>/catalog.db`), so the HTTP app, the CLI
(`--lake DIR`) and the MCP server all read the same thing.

June 2025 (XSHG): 05-30, the Dragon Boat holiday 05-31 … 06-02, sessions 06-03 … 06-06, a
weekend 06-07/08, then 06-09, 06-10, 06-11.
- quotes: A and B on 05-30 and 06-03 … 06-06, each session OK; 06-09 UPSTREAM_ERROR, 06-10 RATE_LIMITED,
  06-11 PERMISSION_DENIED (failed fetches, no rows).
- adj_factors: A and B on 05-30 and 06-03 … 06-06 (A has an ex-date on 06-05).
- valuation: A and B on 06-03 … 06-05 OK; 06-06 NOT_READY (the vendor had not published it).
- index_quotes: the CSI 300 (000300.SH) and the SSE Composite (000001.SH, not B's 000001.SZ)
  on 06-03 … 06-06, each session OK.
- index_members: CSI 300's snapshot of 06-03 (A and B); fetched OK on 06-03, NO_DATA (no
  snapshot) on 06-04 … 06-06.
- dragon_tiger: A listed twice on 06-04; whole-market fetches OK on 06-03 … 06-06.
- financials: A income for 2024 annual and 2025 Q1; B fetched OK with nothing public.
- news: three items about A / B on 06-04 and 06-05.
- announcements: A at 23:59 on 06-05 (rec_time), B date-only on 06-05, A at 00:01 on 06-06;
  whole-market fetches OK for 06-04 … 06-06.
- disclosure_schedule: A's H1 planned 08-20 (announced 06-03), moved to 08-28 (announced 06-05);
  B's H1 planned 08-22 (first seen at INGEST).
- securities: A, B and C (600087.SH, delisted from 06-05) listed; B named ST from 06-04
  (announced 06-03); A suspended on 06-04; fetched OK on 06-03 … 06-06.
- limit_prices: A and B on 06-03 … 06-06 (±10 % of the previous close), each session OK.
- limit_pools: the vendor lists B as a limit-up on 06-04 (the bars do not agree: vendor rows
  as stored); 06-03, 06-05, 06-06 fetched with empty pools (NO_DATA).
- new_shares: 603398.SH subscribed 06-03 at 18.00 (listing 06-13), the window 06-01 … 06-06 OK.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pandas as pd

from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from tests.lake.conftest import (
    INGEST,
    bar,
    bj,
    canonical,
    factor,
    news_frame,
    news_item,
    statement_row,
    write,
)

A, B = "600519.SH", "000001.SZ"
CSI300, SSE = "000300.SH", "000001.SH"  # index codes
C = "600087.SH"  # delisted from 2025-06-05
SESSIONS = ["2025-06-03", "2025-06-04", "2025-06-05", "2025-06-06"]
QUOTE_SESSIONS = ["2025-05-30", *SESSIONS]
# "Now" for every service in these tests: after everything planted.
NOW = datetime(2025, 12, 31, 12, 0, tzinfo=bj("2025-06-03").tzinfo)


def build_lake(root: Path) -> Path:
    """Write the lake described in the module docstring under `root`; returns `root`."""
    store = LakeStore(root)
    cat = Catalog(lake_root=root)
    try:
        _quotes(store, cat)
        _factors(store, cat)
        _valuation(store, cat)
        _index_quotes(store, cat)
        _index_members(store, cat)
        _dragon_tiger(store, cat)
        _financials(store, cat)
        _news(store, cat)
        _announcements(store, cat)
        _schedule(store, cat)
        _securities(store, cat)
        _limit_lists(store, cat)
        _new_shares(store, cat)
    finally:
        cat.close()
    return root


def _quotes(store: LakeStore, cat: Catalog) -> None:
    rows = [
        bar(s, d, base + i, volume=1000.0 + i)
        for i, d in enumerate(QUOTE_SESSIONS)
        for s, base in ((A, 1500.0), (B, 11.0))
    ]
    write(store, "quotes", rows)
    for d in QUOTE_SESSIONS:
        cat.record_ledger(
            "quotes", d, "OK", rows=2, vendor="tushare", trace=[{"vendor": "tushare"}], at=INGEST
        )
    for d, status, msg in (
        ("2025-06-09", "UPSTREAM_ERROR", "tushare: read timed out; akshare: HTTP 502"),
        ("2025-06-10", "RATE_LIMITED", "每分钟最多访问该接口500次"),
        ("2025-06-11", "PERMISSION_DENIED", "抱歉，您没有访问该接口的权限"),
    ):
        cat.record_ledger("quotes", d, status, vendor="tushare", message=msg, at=INGEST)


def _factors(store: LakeStore, cat: Catalog) -> None:
    rows = []
    for d in QUOTE_SESSIONS:
        rows.append(factor(A, d, 2.0 if d >= "2025-06-05" else 1.0))
        rows.append(factor(B, d, 1.0))
    write(store, "adj_factors", rows)
    for d in QUOTE_SESSIONS:
        cat.record_ledger("adj_factors", d, "OK", rows=2, vendor="tushare", at=INGEST)


def _valuation(store: LakeStore, cat: Catalog) -> None:
    rows = [
        {"symbol": s, "trade_date": d, "pe": pe, "pb": 3.0, "total_mv": 1.0e11}
        for d in SESSIONS[:3]
        for s, pe in ((A, 25.0), (B, 5.0))
    ]
    write(store, "valuation", rows)
    for d in SESSIONS[:3]:
        cat.record_ledger("valuation", d, "OK", rows=2, vendor="tushare", at=INGEST)
    cat.record_ledger(
        "valuation", SESSIONS[3], "NOT_READY", message="daily_basic returned 2025-06-05", at=INGEST
    )


def _index_quotes(store: LakeStore, cat: Catalog) -> None:
    rows = []
    for i, d in enumerate(SESSIONS):
        for s, level in ((CSI300, 3850.0), (SSE, 3300.0)):
            row = bar(s, d, level + i, volume=4.0e10)
            del row["turnover_rate"]
            rows.append(row)
    write(store, "index_quotes", rows)
    for d in SESSIONS:
        cat.record_ledger("index_quotes", d, "OK", rows=2, vendor="tushare", at=INGEST)


def _index_members(store: LakeStore, cat: Catalog) -> None:
    rows = [
        {"index_code": CSI300, "trade_date": SESSIONS[0], "symbol": s, "weight": w}
        for s, w in ((A, 5.2), (B, 3.5))
    ]
    write(store, "index_members", rows)
    for i, d in enumerate(SESSIONS):
        status, n = ("OK", 2) if i == 0 else ("NO_DATA", 0)
        cat.record_ledger("index_members", d, status, rows=n, vendor="tushare", at=INGEST)


def _dragon_tiger(store: LakeStore, cat: Catalog) -> None:
    rows = [
        {"symbol": A, "trade_date": "2025-06-04", "reason": r, "net_buy": n, "close": 1501.0}
        for r, n in (("日涨幅偏离值达7%", 1e8), ("连续三个交易日内涨幅偏离值累计达20%", 2e8))
    ]
    write(store, "dragon_tiger", rows, source="akshare")
    for d in SESSIONS:
        cat.record_ledger("dragon_tiger", d, "OK", rows=2 if d == SESSIONS[1] else 0, at=INGEST)


def _financials(store: LakeStore, cat: Catalog) -> None:
    write(
        store,
        "financials",
        [
            statement_row(A, "2024-12-31", "2025-03-28", revenue=100.0, net_profit=10.0),
            statement_row(A, "2025-03-31", "2025-04-25", revenue=30.0, net_profit=3.0),
        ],
    )
    cat.record_ledger("financials", "2025-03-31", "OK", symbol=A, rows=2, at=INGEST)
    cat.record_ledger("financials", "2025-03-31", "NO_DATA", symbol=B, at=INGEST)


def _news(store: LakeStore, cat: Catalog) -> None:
    items = [
        news_item("n1", "贵州茅台公告", bj("2025-06-04", "19:30"), [A]),
        news_item("n2", "平安银行快讯", bj("2025-06-05", "09:00"), [B]),
        news_item("n3", "两家公司同日公告", bj("2025-06-05", "20:00"), [A, B]),
    ]
    write(store, "news", news_frame(items), ingested_at=INGEST)
    for d in ("2025-06-04", "2025-06-05", "2025-06-06"):
        cat.record_ledger("news", d, "OK", rows=1, vendor="akshare", at=INGEST)


def _announcements(store: LakeStore, cat: Catalog) -> None:
    def notice(ann_id: str, symbol: str, day: str, title: str, at: datetime | None) -> dict:
        return {
            "ann_id": ann_id,
            "symbols": [symbol],
            "name": None,
            "title": title,
            "ann_type": None,
            "ann_date": day,
            "url": None,
            "published_at": at,
            "sources": ["tushare:anns_d"],
        }

    rows = [
        notice("a1", A, "2025-06-05", "关于控股股东增持计划的公告", bj("2025-06-05", "23:59")),
        notice("a2", B, "2025-06-05", "2024年年度权益分派实施公告", None),
        notice("a3", A, "2025-06-06", "关于召开临时股东大会的通知", bj("2025-06-06", "00:01")),
    ]
    frame = pd.DataFrame(rows)
    frame["published_at"] = pd.to_datetime(
        [r["published_at"] or pd.NaT for r in rows], utc=True
    ).astype("datetime64[us, UTC]")
    write(store, "announcements", canonical("announcements", frame.to_dict("records")))
    cat.record_ledger("announcements", "2025-06-06", "OK", rows=3, vendor="tushare", at=INGEST)


def _schedule(store: LakeStore, cat: Catalog) -> None:
    def plan(symbol: str, planned: str, ann: str | None) -> dict:
        return {
            "symbol": symbol,
            "report_period": "2025-06-30",
            "planned_date": planned,
            "ann_date": ann,
        }

    write(
        store,
        "disclosure_schedule",
        [plan(A, "2025-08-20", "2025-06-03"), plan(B, "2025-08-22", None)],
    )
    write(store, "disclosure_schedule", [plan(A, "2025-08-28", "2025-06-05")])
    cat.record_ledger(
        "disclosure_schedule", "2025-06-06", "OK", rows=2, vendor="tushare", at=INGEST
    )


def _new_shares(store: LakeStore, cat: Catalog) -> None:
    """One IPO subscribed in the window (listing after it): the window's fetch is OK."""
    ipo = {
        "symbol": "603398.SH",
        "ipo_date": "2025-06-03",
        "list_date": "2025-06-13",
        "issue_price": 18.0,
        "shares_offered": 4.0e7,
    }
    write(store, "new_shares", [ipo])
    cat.record_ledger(
        "new_shares",
        "2025-06-06",
        "OK",
        rows=1,
        vendor="tushare",
        at=INGEST,
        window_start="2025-06-01",
    )


def _securities(store: LakeStore, cat: Catalog) -> None:
    def listing(sym: str, start: str, end: str | None = None) -> dict:
        board, exchange = "main", sym[7:]
        return {
            "symbol": sym,
            "attribute": "listing",
            "start_date": start,
            "end_date": end,
            "board": board,
            "exchange": exchange,
        }

    def name(sym: str, text: str, start: str, ann: str, end: str | None = None) -> dict:
        return {
            "symbol": sym,
            "attribute": "name",
            "start_date": start,
            "end_date": end,
            "name": text,
            "ann_date": ann,
        }

    rows = [
        listing(A, "2001-08-27"),
        listing(B, "1991-04-03"),
        listing(C, "1997-06-12"),
        listing(C, "1997-06-12", "2025-06-04"),  # delisted from 06-05
        name(A, "贵州茅台", "2001-08-27", "2001-08-27"),
        name(B, "平安银行", "1991-04-03", "1991-04-03"),
        name(B, "平安银行", "1991-04-03", "1991-04-03", "2025-06-03"),
        name(B, "ST平安", "2025-06-04", "2025-06-03"),
        {**name(B, "ST平安", "2025-06-04", "2025-06-03"), "attribute": "st", "name": None},
        name(C, "退市长油", "1997-06-12", "1997-06-12"),
        {
            "symbol": A,
            "attribute": "suspension",
            "start_date": "2025-06-04",
            "end_date": "2025-06-04",
            "start_time": "09:15",
        },
    ]
    write(store, "securities", rows)
    for d in SESSIONS:
        cat.record_ledger("securities", d, "OK", rows=len(rows), vendor="tushare", at=INGEST)


def _limit_lists(store: LakeStore, cat: Catalog) -> None:
    prices = []
    for i, d in enumerate(SESSIONS):
        for s, base in ((A, 1500.0), (B, 11.0)):
            pre = base + i  # the previous session's close (QUOTE_SESSIONS is one ahead)
            up, down = round(pre * 1.1, 2), round(pre * 0.9, 2)
            prices.append(
                {"symbol": s, "trade_date": d, "pre_close": pre, "up_limit": up, "down_limit": down}
            )
    write(store, "limit_prices", prices)
    pool = {
        "symbol": B,
        "trade_date": "2025-06-04",
        "pool": "up",
        "close": 13.2,
        "consecutive": 1.0,
    }
    write(store, "limit_pools", [pool])
    for d in SESSIONS:
        cat.record_ledger("limit_prices", d, "OK", rows=2, vendor="tushare", at=INGEST)
        listed = d == "2025-06-04"
        status, rows = ("OK", 1) if listed else ("NO_DATA", 0)
        cat.record_ledger("limit_pools", d, status, rows=rows, vendor="tushare", at=INGEST)
