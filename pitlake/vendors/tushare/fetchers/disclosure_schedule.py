"""Tushare `disclosure_date` → disclosure_schedule (docs/vendor-reference.md §4.2).

One call per report period in season over the request's days (`pitlake.pit.periods_reporting_in`),
paged past the 3000-row cap. `ann_date` is the latest scheduling announcement (the known-at
rule dates the row by it, or by `actual_date` when later); `pre_date` the plan, `actual_date`
the publication (null until then: a row that carries it also gives the plan as announced,
without it, as an earlier version); `modify_date`, the change history in the vendor's own
format [format UNVERIFIED], is kept as given in `extra`. A row without `pre_date` carries no
plan and is skipped.
"""

from __future__ import annotations

import logging
from typing import ClassVar

import pandas as pd

from pitlake.pit import is_quarter_end, periods_reporting_in
from pitlake.schemas import get as get_schema
from pitlake.symbols import canonical_many
from pitlake.vendors.base import FetchRequest, RawResponse, VendorQuery, json_cell, json_text
from pitlake.vendors.fetching import window
from pitlake.vendors.parsing import garbled, is_missing, parse_dates, parse_symbols
from pitlake.vendors.tushare.disclosure import (
    DISCLOSURE,
    DISCLOSURE_FIELDS,
    DISCLOSURE_ROWS_PER_CALL,
)
from pitlake.vendors.tushare.fetch import VENDOR, TushareFetcher, ymd
from pitlake.vendors.tushare.pages import next_pages

log = logging.getLogger(__name__)

DATES = ("end_date", "pre_date", "actual_date", "ann_date")


def _rows_cap() -> int:
    """Rows per call (read at call time, so tests can lower it)."""
    return DISCLOSURE_ROWS_PER_CALL


def schedule_rows(frame: pd.DataFrame) -> pd.DataFrame:
    kw = {"vendor": VENDOR, "endpoint": DISCLOSURE}
    dates = {c: parse_dates(frame[c], column=c, **kw) for c in DATES}
    if dates["end_date"].isna().any():
        raise garbled("a row has no end_date: not a schedule row", **kw)
    off = ~dates["end_date"].map(is_quarter_end).astype(bool)
    if off.any():
        raise garbled(f"end_date {dates['end_date'][off].iloc[0]} is not a quarter end", **kw)
    out = pd.DataFrame(index=frame.index)
    out["symbol"] = parse_symbols(frame["ts_code"], vendor=VENDOR)
    out["report_period"] = dates["end_date"]
    out["planned_date"] = dates["pre_date"]
    out["actual_date"] = dates["actual_date"]
    out["first_planned_date"] = None
    out["ann_date"] = dates["ann_date"]
    history = frame["modify_date"] if "modify_date" in frame.columns else [None] * len(frame)
    out["extra"] = [
        None if is_missing(v) else json_text({"modify_date": json_cell(v)}) for v in history
    ]
    unplanned = out["planned_date"].isna() & out["symbol"].notna()
    if unplanned.any():
        log.info("tushare %s: %d row(s) without pre_date skipped", DISCLOSURE, int(unplanned.sum()))
    out = out[out["symbol"].notna() & ~unplanned]
    # A report already out was planned before it: the plan as announced, without the actual
    # date, is a version of its own, public from the announcement on.
    planned_first = (
        out["actual_date"].notna()
        & out["ann_date"].notna()
        & (out["ann_date"] < out["actual_date"])
    )
    return pd.concat([out[planned_first].assign(actual_date=None), out], ignore_index=True)


class DisclosureScheduleFetcher(TushareFetcher):
    dataset = "disclosure_schedule"
    required: ClassVar[dict[str, tuple[str, ...]]] = {
        DISCLOSURE: ("ts_code", "end_date", "pre_date", "actual_date", "ann_date")
    }
    row_endpoints = (DISCLOSURE,)

    def transform_query(self, req: FetchRequest) -> list[VendorQuery]:
        first, last = window(req, VENDOR)
        return [
            VendorQuery(DISCLOSURE, {"end_date": ymd(p), "fields": DISCLOSURE_FIELDS})
            for p in periods_reporting_in(first, last)
        ]

    def follow_up(self, req: FetchRequest, stage: list[RawResponse]) -> list[VendorQuery]:
        """A full page may be truncated: ask for the next one."""
        return next_pages(stage, DISCLOSURE, _rows_cap)

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        columns = get_schema(self.dataset).columns
        frames = [schedule_rows(r.frame) for r in raws if r.query.endpoint == DISCLOSURE]
        frames = [f for f in frames if not f.empty]
        if not frames:
            return pd.DataFrame(columns=columns)
        out = pd.concat(frames, ignore_index=True).drop_duplicates(
            ["symbol", "report_period", "actual_date"], keep="first"
        )
        if req.symbols:
            out = out[out["symbol"].isin(canonical_many(list(req.symbols)))]
        return out.reindex(columns=columns)


FETCHER = DisclosureScheduleFetcher
