"""East Money's report appointment list (AkShare `stock_yysj_em(symbol, date=period)`,
`RPT_PUBLIC_BS_APPOIN`) → disclosure_schedule (docs/vendor-reference.md §4.5).

One call per report period in season and market segment (沪深A股 leaves out the Beijing
exchange, which 京市A股 gives); akshare pages through the answer itself (500 rows a page).
首次预约时间 is the first planned date; 一次/二次/三次变更日期 the planned dates each change
moved to [reading of East Money's columns: UNVERIFIED], so the plan is the latest of them.
Nothing says when a change was announced: the rows carry no `ann_date` and are known when
first seen. 实际披露时间 is the publication, if any.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import pandas as pd

from pitlake.pit import periods_reporting_in
from pitlake.schemas import get as get_schema
from pitlake.symbols import canonical_many
from pitlake.vendors.akshare.fetch import VENDOR, AkshareFetcher, require, yyyymmdd
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery, json_cell, json_text
from pitlake.vendors.fetching import window
from pitlake.vendors.parsing import parse_dates, parse_required_dates, parse_symbols

APPOINTMENTS = "stock_yysj_em"
SEGMENTS = ("沪深A股", "京市A股")  # together: every A share
FIRST = "首次预约时间"
CHANGES = ("一次变更日期", "二次变更日期", "三次变更日期")
ACTUAL = "实际披露时间"
COLUMNS = ("股票代码", FIRST, *CHANGES, ACTUAL)


def appointment_rows(raw: RawResponse) -> pd.DataFrame:
    frame = require(raw.frame, COLUMNS, APPOINTMENTS)
    if frame.empty:
        return pd.DataFrame()
    kw = {"vendor": VENDOR, "endpoint": APPOINTMENTS}
    (period,) = parse_required_dates(
        pd.Series([raw.query.params["date"]]), column="date", **kw
    ).tolist()
    first = parse_dates(frame[FIRST], column=FIRST, **kw)
    changes = [parse_dates(frame[c], column=c, **kw) for c in CHANGES]
    planned = first.copy()
    for moved in changes:  # the latest change given is the plan
        planned = moved.where(moved.notna(), planned)
    out = pd.DataFrame(index=frame.index)
    out["symbol"] = parse_symbols(frame["股票代码"], vendor=VENDOR)
    out["report_period"] = [period] * len(frame)
    out["planned_date"] = planned
    out["actual_date"] = parse_dates(frame[ACTUAL], column=ACTUAL, **kw)
    out["first_planned_date"] = first
    out["ann_date"] = None  # East Money does not say when a plan was announced
    out["extra"] = [
        json_text({c: json_cell(d) for c, d in zip(CHANGES, ds, strict=True) if d is not None})
        if any(d is not None for d in ds)
        else None
        for ds in zip(*changes, strict=True)
    ]
    return out[out["symbol"].notna() & out["planned_date"].notna()]


class DisclosureScheduleFetcher(AkshareFetcher):
    dataset = "disclosure_schedule"
    required: ClassVar[dict[str, tuple[str, ...]]] = {APPOINTMENTS: COLUMNS}
    optional_endpoints = frozenset({APPOINTMENTS})  # one segment's empty list is its own

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        first, last = window(req, VENDOR)
        return [
            VendorQuery(APPOINTMENTS, {"symbol": segment, "date": yyyymmdd(p)})
            for p in periods_reporting_in(first, last)
            for segment in SEGMENTS
        ]

    def transform_data(self, req: FetchRequest, raws: Sequence[RawResponse]) -> pd.DataFrame:
        frames = [appointment_rows(r) for r in raws if r.query.endpoint == APPOINTMENTS]
        frames = [f for f in frames if not f.empty]
        if not frames:
            return pd.DataFrame()
        out = pd.concat(frames, ignore_index=True).drop_duplicates(
            ["symbol", "report_period"], keep="first"
        )
        if req.symbols:
            out = out[out["symbol"].isin(canonical_many(list(req.symbols)))]
        return out.reindex(columns=get_schema(self.dataset).columns)


FETCHER = DisclosureScheduleFetcher
