"""Tushare `adj_factor` → adj_factors: the cumulative back-adjustment factor per session
(docs/vendor-reference.md §2.5)."""

from __future__ import annotations

from pitlake.vendors.tushare.daily import DailyFetcher, DailySpec

SPEC = DailySpec("adj_factor", {"adj_factor": "adj_factor"}, {})


class AdjFactorsFetcher(DailyFetcher):
    dataset = "adj_factors"
    spec = SPEC


FETCHER = AdjFactorsFetcher
