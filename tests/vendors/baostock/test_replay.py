"""Baostock answers recorded by the live client replay to the same canonical rows, filtered
as Baostock filters; injected failures raise what the live client raises."""

from __future__ import annotations

import pandas as pd
import pytest

from pitlake.errors import PitlakeError, VendorPermissionError, VendorRateLimitError
from pitlake.vendors.baostock.client import BaostockClient
from pitlake.vendors.plugins import plugin
from pitlake.vendors.replay.source import ReplaySource
from tests.vendors.baostock.recorded import FETCHED_AT, RECORDED
from tests.vendors.conftest import write_error
from tests.vendors.wire.baostock_wire import server
from tests.vendors.wire.http_replay import HttpReplay


@pytest.mark.parametrize("dataset", sorted(RECORDED))
def test_recorded_answers_replay_to_the_same_rows(tmp_path, dataset):
    rec = RECORDED[dataset]
    rec.serve(HttpReplay())
    live = BaostockClient(server=server().address, timeout=10.0, record_dir=tmp_path)
    adapter = plugin("baostock").adapter
    served = adapter(live).fetch(rec.request, rec.fetched_at).frame
    replayed = adapter(ReplaySource(tmp_path).client("baostock")).fetch(rec.request, rec.fetched_at)
    pd.testing.assert_frame_equal(served, replayed.frame)


def test_replay_filters_statements_by_year_and_quarter(tmp_path):
    rec = RECORDED["financials"]
    rec.serve(HttpReplay())
    live = BaostockClient(server=server().address, timeout=10.0, record_dir=tmp_path)
    plugin("baostock").adapter(live).fetch(rec.request, rec.fetched_at)
    replay = ReplaySource(tmp_path).client("baostock")
    q1 = replay.call("query_profit_data", code="sh.600519", year="2025", quarter="1")
    assert q1["statDate"].tolist() == ["2025-03-31"]
    none = replay.call("query_profit_data", code="sh.600519", year="2023", quarter="1")
    assert none.empty and "pubDate" in none.columns  # Baostock's no rows: the fields, no rows


@pytest.mark.parametrize(
    ("kind", "typed"),
    [("rate_limited", VendorRateLimitError), ("permission_denied", VendorPermissionError)],
)
def test_injected_failures_are_typed_like_live_ones(tmp_path, kind, typed):
    write_error(tmp_path, "baostock", "query_history_k_data_plus", {"error": kind})
    (tmp_path / "baostock" / "query_history_k_data_plus.jsonl").write_text("")
    rec = RECORDED["quotes"]
    with pytest.raises(PitlakeError) as info:
        plugin("baostock").adapter(ReplaySource(tmp_path).client("baostock")).fetch(
            rec.request, FETCHED_AT
        )
    assert isinstance(info.value, typed)
