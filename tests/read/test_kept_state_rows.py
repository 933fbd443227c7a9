"""The security master's rows are kept per file identity (readers/state.py, read/kept.py), and
the cutoff is still applied per request: a version known after the cutoff stays out of an
answer read from the kept rows, a rewritten partition is read again, and the kept rows give
the same newest versions as the query over the files at every cutoff."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime

import pandas as pd
import pytest
from pitlake.schemas import SCHEMAS

from pitlake.calendar import BEIJING
from pitlake.lake.canonical import SUPPLIED_BITEMPORAL
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.read.readers import state
from pitlake.statuses import LedgerStatus
from pitlake.vendors.base import FetchRequest
from tests.read.test_market import SAMPLE

FETCHED = datetime(2025, 7, 1, 20, 0, tzinfo=BEIJING)
SPEC = SCHEMAS["securities"]
DELISTED = "600519.SH"  # given a delisting known only after the first as-of below


@pytest.fixture()
def lake(tmp_path: pytest.TempPathFactory) -> Iterator[Lake]:
    from pitlake.vendors.registry import build_router

    router = build_router(f"replay:{SAMPLE}")
    request = FetchRequest("securities", start=date(2025, 4, 1), end=date(2025, 6, 30))
    r = router.route(request, FETCHED, chain=["tushare"])
    assert r.status is LedgerStatus.OK, r.message
    LakeStore(tmp_path).write("securities", r.frame, run_id="sample", ingested_at=FETCHED)
    catalog = Catalog(lake_root=tmp_path)
    catalog.record_ledger(
        "securities", date(2025, 4, 1), LedgerStatus.OK, rows=1, vendor="tushare", at=FETCHED
    )
    catalog.close()
    with Lake(tmp_path, clock=lambda: FETCHED) as lk:
        yield lk


def _listed(lake: Lake, as_of: str) -> set[str]:
    answer = lake.universe(as_of)
    assert answer.ok, answer.message
    return set(answer.to_arrow().column("symbol").to_pylist())


def _plant_delisting(lake: Lake) -> None:
    """A new version of the listing row: ended 2025-06-10, known on 2025-06-11."""
    rows = state.rows_by(lake.store, lake.reader, SPEC, date(2025, 6, 30), None)
    listing = rows[(rows["symbol"] == DELISTED) & (rows["attribute"] == "listing")].copy()
    assert len(listing) == 1
    listing["start_date"] = listing["start_date"].dt.date
    listing["end_date"] = date(2025, 6, 10)
    listing["known_at"] = pd.Timestamp("2025-06-11 18:00", tz=BEIJING).tz_convert("UTC")
    stamp = datetime(2025, 7, 2, 9, 0, tzinfo=BEIJING)
    columns = [*SPEC.columns, *SUPPLIED_BITEMPORAL]
    lake.store.write("securities", listing[columns], run_id="later", ingested_at=stamp)


def test_a_rewritten_master_is_read_again_and_its_later_version_stays_out(lake: Lake) -> None:
    assert DELISTED in _listed(lake, "2025-06-20")  # the kept rows: listed, no end known
    _plant_delisting(lake)
    assert DELISTED not in _listed(lake, "2025-06-20")  # the rewrite is seen
    # known on 06-11: an as-of before it still sees the open-ended listing
    assert DELISTED in _listed(lake, "2025-06-05")
    assert DELISTED in _listed(lake, "2025-06-09")


@pytest.mark.parametrize(
    "cutoff", [None, "2025-06-05", "2025-06-11T17:59:59", "2025-06-11T18:00", "2025-06-30"]
)
def test_the_kept_rows_give_the_files_newest_versions(
    lake: Lake, cutoff: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plant_delisting(lake)
    instant = None if cutoff is None else lake.ask(cutoff).cutoff
    day = date(2025, 6, 20)
    kept = state.rows_by(lake.store, lake.reader, SPEC, day, instant)
    assert len(state._STORED_ROWS)  # the answer came from kept rows
    monkeypatch.setattr(state._STORED_ROWS, "get", lambda *_a, **_k: None)
    queried = state.rows_by(lake.store, lake.reader, SPEC, day, instant)
    key = list(SPEC.key)
    pd.testing.assert_frame_equal(
        kept.sort_values(key).reset_index(drop=True),
        queried.sort_values(key).reset_index(drop=True),
    )
    ends = kept[(kept["symbol"] == DELISTED) & (kept["attribute"] == "listing")]["end_date"]
    delisting_known = cutoff is None or cutoff >= "2025-06-11T18:00"
    assert ends.notna().all() == delisting_known


def test_an_ingestion_cutoff_applies_to_the_kept_rows(lake: Lake) -> None:
    _plant_delisting(lake)
    before = datetime(2025, 7, 2, 8, 0, tzinfo=BEIJING)  # before the delisting was stored
    answer = lake.universe("2025-06-20", as_ingested=before)
    assert DELISTED in set(answer.to_arrow().column("symbol").to_pylist())
