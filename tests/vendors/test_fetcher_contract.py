"""One contract for every fetcher of every vendor plugin (the idea of OpenBB's Fetcher.test).

Each fetcher runs over its recorded wire answers (tests/vendors/<vendor>/recorded.py, replies
under tests/vendors/wire/<vendor>/), through the vendor's real client, and must give:
- exactly the dataset's canonical columns, then known_at, known_at_basis and source, in types
  the dataset's Arrow schema takes (non-nullable fields without nulls);
- `known_at` tz-aware (UTC, microseconds), never after the fetch instant, with a basis;
- `source` = the vendor.
The same answers made column-less, or drifted (a column the fetcher requires renamed), must be
a typed error, never data. A registered fetcher without a recorded answer fails the test.
"""

from __future__ import annotations

import importlib

import pandas as pd
import pytest

from pitlake import schemas
from pitlake.errors import PitlakeError
from pitlake.vendors.base import FetchOutcome, VendorPlugin
from pitlake.vendors.plugins import plugins
from tests.vendors.contract import MutatingClient, Mutation, Recording
from tests.vendors.wire.http_replay import HttpReplay

CASES = [(p, dataset) for p in plugins() for dataset in sorted(p.fetchers)]
IDS = [f"{p.name}-{dataset}" for p, dataset in CASES]


def recording(plugin: VendorPlugin, dataset: str) -> Recording:
    try:
        module = importlib.import_module(f"tests.vendors.{plugin.name}.recorded")
    except ModuleNotFoundError:
        pytest.fail(
            f"{plugin.name} has no recorded answers (tests/vendors/{plugin.name}/recorded.py)"
        )
    found = module.RECORDED.get(dataset)
    if found is None:
        pytest.fail(f"{plugin.name}'s {dataset} fetcher has no recorded answer")
    return found


def run(plugin: VendorPlugin, dataset: str, mutate: Mutation | None = None) -> FetchOutcome:
    rec = recording(plugin, dataset)
    assert rec.request.dataset == dataset
    http = HttpReplay()
    rec.serve(http)
    client = rec.client()
    if mutate is not None:
        client = MutatingClient(client, mutate)
    with http.active():
        return plugin.adapter(client, **rec.options).fetch(rec.request, rec.fetched_at)


@pytest.mark.parametrize(("plugin", "dataset"), CASES, ids=IDS)
def test_recorded_answers_give_canonical_rows(plugin: VendorPlugin, dataset: str) -> None:
    spec = schemas.get(dataset)
    outcome = run(plugin, dataset)
    frame = outcome.frame
    assert not frame.empty
    assert list(frame.columns) == [*spec.columns, "known_at", "known_at_basis", "source"]
    # the types the Arrow schema takes, with no nulls where it allows none
    stamped = frame.assign(ingested_at=pd.Timestamp.now(tz="UTC"), run_id="contract")
    table = spec.to_arrow(stamped)
    for f in spec.arrow_schema:
        if not f.nullable:
            assert table.column(f.name).null_count == 0, f"{f.name} has nulls"
    assert str(frame["known_at"].dtype) == "datetime64[us, UTC]"
    fetched = pd.Timestamp(recording(plugin, dataset).fetched_at)
    assert (frame["known_at"] <= fetched).all(), "known_at after the fetch instant"
    assert frame["known_at_basis"].notna().all()
    assert (frame["source"] == plugin.name).all()
    assert outcome.vendor == plugin.name and outcome.raws


def _column_less(_endpoint: str, _frame: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame()


@pytest.mark.parametrize(("plugin", "dataset"), CASES, ids=IDS)
def test_a_column_less_answer_is_a_typed_error(plugin: VendorPlugin, dataset: str) -> None:
    with pytest.raises(PitlakeError):
        run(plugin, dataset, _column_less)


@pytest.mark.parametrize(("plugin", "dataset"), CASES, ids=IDS)
def test_a_drifted_answer_is_a_typed_error(plugin: VendorPlugin, dataset: str) -> None:
    """Every answer has the first column the fetcher requires of it renamed."""
    required = plugin.fetchers[dataset].required
    assert required, f"{plugin.name}'s {dataset} fetcher declares no required columns"
    renamed: list[str] = []

    def drift(endpoint: str, frame: pd.DataFrame) -> pd.DataFrame:
        column = required.get(endpoint, (None,))[0]
        if column in frame.columns:
            renamed.append(endpoint)
            return frame.rename(columns={column: f"{column}_renamed"})
        return frame

    with pytest.raises(PitlakeError):
        run(plugin, dataset, drift)
    assert renamed, "no answer carried a required column"


def test_every_vendor_plugin_is_registered_once() -> None:
    names = [p.name for p in plugins()]
    assert len(names) == len(set(names)) >= 2
