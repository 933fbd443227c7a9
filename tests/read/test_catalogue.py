"""The catalogue (`Lake.datasets`, issue 30 "What is in the lake"): held to the dataset specs
by iterating them (a spec that changes without the catalogue following fails here), and
point-in-time in what it says the lake holds (a later ingest stays out of an earlier
cutoff's rows, dates and last successful fetch)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from pitlake.schemas import BITEMPORAL_FIELDS, SCHEMAS, Dataset
from pitlake.schemas.base import BITEMPORAL_DOCS, by_unit

from pitlake import units
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.pit import rule_bases
from pitlake.read import catalogue
from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from pitlake.vendors.plugins import plugins
from tests.lake.conftest import bar, bj, write
from tests.serve.api.lakebuild import NOW, A, B, build_lake

PLANTED_DAY = "2025-06-12"  # a session after everything lakebuild holds
PLANTED_AT = bj(PLANTED_DAY, "18:00")  # stored and fetched that evening


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_lake(tmp_path_factory.mktemp("catalogue") / "lake")


@pytest.fixture
def planted(built: Path, tmp_path: Path) -> Path:
    """The built lake plus a later ingest: quotes of PLANTED_DAY stored and fetched OK at
    PLANTED_AT, then a failed refetch of that day the next evening."""
    root = Path(shutil.copytree(built, tmp_path / "lake"))
    write(
        LakeStore(root),
        "quotes",
        [bar(A, PLANTED_DAY, 1600.0), bar(B, PLANTED_DAY, 12.0)],
        ingested_at=PLANTED_AT,
    )
    cat = Catalog(lake_root=root)
    try:
        cat.record_ledger("quotes", PLANTED_DAY, "OK", rows=2, vendor="tushare", at=PLANTED_AT)
        cat.record_ledger(
            "quotes", PLANTED_DAY, "UPSTREAM_ERROR", vendor="tushare", at=bj("2025-06-13", "18:00")
        )
    finally:
        cat.close()
    return root


def _entries(root: Path, as_of: object = None, **kw: object) -> dict[str, dict]:
    with Lake(root, clock=lambda: NOW) as lake:
        result = lake.datasets(as_of, **kw)
    assert result.status is ResultStatus.OK, result.message
    return {row["name"]: row for row in result.data}


# ---------------------------------------------------------------- held to the specs


def test_every_spec_appears_once_in_registry_order(built: Path) -> None:
    assert list(_entries(built)) == list(SCHEMAS)


def test_each_entry_is_its_spec(built: Path) -> None:
    """Every field with its type, nullability and unit, the key, the known-at rule and its
    bases, the vendors with a fetcher and the default chain, the load rules: from the spec
    objects and the registered plugins, not from a list typed here."""
    entries = _entries(built)
    for name, spec in SCHEMAS.items():
        e = entries[name]
        columns = [*spec.fields, *BITEMPORAL_FIELDS]
        assert [(f["name"], f["type"], f["nullable"]) for f in e["fields"]] == [
            (f.name, str(f.type), f.nullable) for f in columns
        ], name
        assert [f["unit"] for f in e["fields"]] == [spec.units.get(f.name) for f in columns]
        assert [f["key"] for f in e["fields"]] == [f.name in spec.key for f in columns]
        docs = {**BITEMPORAL_DOCS, **spec.column_docs}
        assert [f["description"] for f in e["fields"]] == [docs.get(f.name) for f in columns]
        assert e["key"] == list(spec.key)
        assert e["kind"] == spec.kind.value and e["load"]["scope"] == spec.scope.value
        assert e["date_column"] == spec.date_column
        assert e["known_at"]["rule"] == spec.known_at.__name__
        assert e["known_at"]["bases"] == list(rule_bases(spec.known_at))
        assert e["known_at"]["bases"], f"{name}: its rule declares no basis"
        assert e["default_chain"] == list(spec.default_chain)
        assert e["vendors"] == [p.name for p in plugins() if name in p.fetchers]
        assert set(spec.default_chain) <= set(e["vendors"]), name
        assert e["load"]["nightly"] is spec.nightly
        assert e["description"] == (spec.description or None)


def test_a_spec_change_shows_in_the_catalogue(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Change a spec (a new column with a unit, a new chain): the catalogue follows."""
    spec = SCHEMAS["quotes"]
    changed = dataclasses.replace(
        spec,
        fields=(*spec.fields, pa.field("vwap", pa.float64())),
        units={**spec.units, "vwap": units.CNY_PER_SHARE},
        column_docs={"vwap": "amount / volume"},
        default_chain=("akshare",),
    )
    monkeypatch.setitem(SCHEMAS, "quotes", changed)
    e = _entries(built)["quotes"]
    vwap = next(f for f in e["fields"] if f["name"] == "vwap")
    assert vwap == {
        "name": "vwap",
        "type": "double",
        "nullable": True,
        "unit": "CNY/share",
        "description": "amount / volume",
        "key": False,
    }
    assert e["default_chain"] == ["akshare"]


def test_every_stored_basis_is_one_its_rule_declares(built: Path) -> None:
    """The rules' declared bases (pit.bases) against what they stamp: lakebuild's rows are
    stamped by each spec's own rule."""
    store = LakeStore(built)
    for name, spec in SCHEMAS.items():
        declared = set(rule_bases(spec.known_at))
        for path in store.files(name):
            stamped = set(pa.parquet.read_table(path, columns=["known_at_basis"])[0].to_pylist())
            assert stamped <= declared, (name, stamped - declared)


def test_a_unit_or_doc_for_a_missing_column_or_an_unknown_unit_is_a_spec_error() -> None:
    spec = SCHEMAS["quotes"]
    with pytest.raises(ValueError, match="units names no column"):
        dataclasses.replace(spec, units=by_unit({units.CNY: ("no_such_column",)}))
    with pytest.raises(ValueError, match="column_docs names no column"):
        dataclasses.replace(spec, column_docs={"nope": "x"})
    with pytest.raises(ValueError, match="unknown units"):
        dataclasses.replace(spec, units={"close": "yuan"})


def test_the_arrow_form_keeps_its_types_when_a_column_is_all_null(built: Path) -> None:
    with Lake(built, clock=lambda: NOW) as lake:
        table = lake.datasets("2025-06-01").to_arrow()  # nothing fetched by then: nulls
    assert table.schema.remove_metadata() == catalogue.CATALOGUE_SCHEMA
    held = table.column("held").to_pylist()
    assert all(h["last_successful_fetch"] is None for h in held)


# ---------------------------------------------------------------- as of the cutoff


def test_a_later_ingest_stays_out_of_an_earlier_cutoff(planted: Path) -> None:
    before = _entries(planted, "2025-06-11")["quotes"]["held"]
    assert before == {
        "rows": 10,
        "first_date": "2025-05-30",
        "last_date": "2025-06-06",
        "last_successful_fetch": None,  # every other fetch was recorded on 06-20
        "last_successful_fetch_date": None,
    }
    after = _entries(planted, "2025-06-12")["quotes"]["held"]
    assert after == {
        "rows": 12,
        "first_date": "2025-05-30",
        "last_date": PLANTED_DAY,
        "last_successful_fetch": "2025-06-12T18:00:00+08:00",
        "last_successful_fetch_date": PLANTED_DAY,
    }


def test_a_fetch_recorded_after_the_cutoff_is_not_shown_beside_rows_public_before(
    planted: Path,
) -> None:
    """As of 17:00 the day's bars (known at 15:00) are public, the fetch (18:00) is not."""
    held = _entries(planted, "2025-06-12T17:00:00+08:00")["quotes"]["held"]
    assert held["rows"] == 12 and held["last_date"] == PLANTED_DAY
    assert held["last_successful_fetch"] is None


def test_a_later_failure_does_not_hide_the_last_successful_fetch(planted: Path) -> None:
    held = _entries(planted, "2025-06-14")["quotes"]["held"]
    assert held["last_successful_fetch"] == "2025-06-12T18:00:00+08:00"


def test_as_ingested_hides_rows_stored_after_it(planted: Path) -> None:
    """An audit as ingested by 06-15: lakebuild's rows (stored 06-20) are not held yet, the
    planted ones are, and the last fetch is the planted one."""
    held = _entries(planted, None, as_ingested=bj("2025-06-15"))["quotes"]["held"]
    assert held["rows"] == 2 and held["first_date"] == held["last_date"] == PLANTED_DAY
    assert held["last_successful_fetch"] == "2025-06-12T18:00:00+08:00"


@pytest.mark.parametrize(
    "kw", [{"as_of": "2025-13-01"}, {"as_of": "yesterday"}, {"as_ingested": "nope"}]
)
def test_a_bad_cutoff_is_invalid_arguments(built: Path, kw: dict[str, str]) -> None:
    with Lake(built, clock=lambda: NOW) as lake:
        result = lake.datasets(**kw)
    assert result.status is ResultStatus.INVALID_ARGUMENTS
    assert result.data == [] and result.message


def test_a_dataset_with_no_files_holds_nothing(built: Path) -> None:
    """lakebuild stores no calendar rows: the entry is there, held empty."""
    assert isinstance(SCHEMAS["calendar"], Dataset)
    assert _entries(built)["calendar"]["held"]["rows"] == 0
    assert _entries(built)["calendar"]["held"]["first_date"] is None
