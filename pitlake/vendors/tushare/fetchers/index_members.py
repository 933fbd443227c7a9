"""Tushare `index_weight` → index_members: an index's members and weights (percent) per
snapshot, dated by `trade_date` (monthly; a date-only fact, known at the end of that day).

`index_code` is required per call, so a session is one call per index (`trade_date`), and a
window one call per index and calendar month (`start_date`/`end_date`): at most a couple of
snapshots of ~1000 members, under the row cap. Tushare does not paginate; an answer of
`ROW_CAP` rows may be cut short, so it is refused (retryable), never stored short.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import ClassVar

import pandas as pd

from pitlake.errors import VendorError
from pitlake.schemas.index_members import MEMBER_INDICES, asked
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.parsing import garbled, parse_numbers, parse_required_dates, parse_symbols
from pitlake.vendors.tushare.fetch import VENDOR, TushareFetcher, ymd

ENDPOINT = "index_weight"
COLUMNS = ("index_code", "con_code", "trade_date", "weight")
ROW_CAP = 6000  # rows per call (docs: 单次最大6000行 [UNVERIFIED for index_weight])


def month_windows(start: date, end: date) -> list[tuple[date, date]]:
    """[start, end] cut at calendar-month boundaries."""
    out = []
    lo = start
    while lo <= end:
        nxt = (lo.replace(day=1) + timedelta(days=32)).replace(day=1)
        out.append((lo, min(end, nxt - timedelta(days=1))))
        lo = nxt
    return out


class IndexMembersFetcher(TushareFetcher):
    dataset = "index_members"
    required: ClassVar[dict[str, tuple[str, ...]]] = {ENDPOINT: COLUMNS}
    row_endpoints = (ENDPOINT,)

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        codes = asked(req.symbols)
        if req.trade_date is not None:
            day = ymd(req.trade_date)
            return [
                VendorQuery(ENDPOINT, {"index_code": c, "trade_date": day}, symbol=c) for c in codes
            ]
        assert req.start is not None and req.end is not None
        return [
            VendorQuery(
                ENDPOINT, {"index_code": c, "start_date": ymd(lo), "end_date": ymd(hi)}, symbol=c
            )
            for c in codes
            for lo, hi in month_windows(req.start, req.end)
        ]

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        kw = {"vendor": VENDOR, "endpoint": ENDPOINT}
        for r in raws:
            if len(r.frame) >= ROW_CAP:
                raise VendorError(
                    f"{len(r.frame)} rows for {r.query.params}: at the row cap, maybe cut short",
                    retryable=True,
                    **kw,
                )
        frames = [r.frame for r in raws if not r.frame.empty]
        if not frames:
            return pd.DataFrame()
        raw = pd.concat(frames, ignore_index=True)
        index = raw["index_code"].map(lambda c: c.strip().upper() if isinstance(c, str) else None)
        if not index.isin(list(MEMBER_INDICES)).all():
            raise garbled(
                f"index_code {raw['index_code'][~index.isin(list(MEMBER_INDICES))].iloc[0]!r} was not asked for",
                **kw,
            )
        out = pd.DataFrame(
            {
                "index_code": index,
                "trade_date": parse_required_dates(raw["trade_date"], column="trade_date", **kw),
                "symbol": parse_symbols(raw["con_code"], vendor=VENDOR),
                "weight": parse_numbers(raw["weight"], column="weight", **kw),
                "current_list": False,
                "vendor_date": None,
            }
        )
        return out[out["symbol"].notna()]


FETCHER = IndexMembersFetcher
