"""Counts are integers on every surface (issue 30): limit_pools `breaks` and `consecutive` are
int64 as fetched, as stored, and as read — also from files an older lake wrote as float64,
which read as integers and take the same rows again without a new version. A count that is
not whole is garbled vendor data, never rounded."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pitlake.calendar import BEIJING, sessions_between
from pitlake.errors import VendorError
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.read.lake import Lake
from pitlake.vendors.base import FetchRequest
from pitlake.vendors.parsing import parse_counts
from pitlake.vendors.registry import build_router
from tests.lake.conftest import write

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
FETCHED = datetime(2025, 7, 1, 20, 0, tzinfo=BEIJING)
COUNTS = ("breaks", "consecutive")


@pytest.fixture(scope="module")
def fetched() -> pd.DataFrame:
    router = build_router(f"replay:{SAMPLE}")
    req = FetchRequest("limit_pools", start=date(2025, 6, 9), end=date(2025, 6, 13))
    return router.route(req, FETCHED, chain=["tushare"]).frame


def test_fetched_counts_are_integers(fetched: pd.DataFrame) -> None:
    for c in COUNTS:
        assert pd.api.types.is_integer_dtype(fetched[c].dtype), (c, fetched[c].dtype)
    byd = fetched[(fetched["symbol"] == "002594.SZ") & (fetched["pool"] == "up")]
    assert sorted(byd["consecutive"].tolist()) == [1, 2, 3]


@pytest.mark.parametrize("bad", ["1.5", "-1"])
def test_a_count_that_is_not_whole_is_garbled(bad: str) -> None:
    with pytest.raises(VendorError, match="is not a count"):
        parse_counts(pd.Series(["2", bad]), vendor="tushare", endpoint="e", column="open_times")
    assert parse_counts(pd.Series(["2", None]), vendor="t", endpoint="e", column="c").tolist() == [
        2,
        pd.NA,
    ]


def _as_float_counts(store: LakeStore) -> list[Path]:
    """Rewrite the stored files as the old schema wrote them: counts in float64."""
    paths = [Path(p.path) for p in store.list_partitions("limit_pools")]
    for path in paths:
        table = pq.read_table(path)
        for c in COUNTS:
            i = table.schema.get_field_index(c)
            table = table.set_column(i, c, table.column(c).cast(pa.float64()))
        pq.write_table(table, path)
    return paths


def test_float_counts_stored_earlier_read_as_integers(
    lake_root: Path, store: LakeStore, sqlite_catalog: Catalog, fetched: pd.DataFrame
) -> None:
    write(store, "limit_pools", fetched)
    for d in sessions_between("2025-06-09", "2025-06-13"):
        sqlite_catalog.record_ledger("limit_pools", d, "OK", rows=1, vendor="tushare", at=FETCHED)
    paths = _as_float_counts(store)
    assert pq.read_schema(paths[0]).field("breaks").type == pa.float64()
    with Lake(lake_root, catalog=sqlite_catalog) as lake:
        rows = lake.limit_pools(start="2025-06-09", end="2025-06-13", as_of="2025-06-30")
        table = rows.to_arrow()
        one = lake.limit_pools("002594.SZ", date="2025-06-11", as_of="2025-06-30").to_arrow()
        sql = lake.sql("SELECT breaks, consecutive FROM limit_pools", as_of="2025-06-30")
    for t in (table, one, sql.to_arrow()):
        assert t.num_rows > 0
        for c in COUNTS:
            assert t.schema.field(c).type == pa.int64(), (c, t.schema)
    assert rows.status == "OK", rows.message
    assert one.column("consecutive").to_pylist() == [3]
    assert rows.to_dict()["data"][0]["breaks"] == int(rows.to_dict()["data"][0]["breaks"])
    # the same rows again: no new version of any key, and the partition reads as int64 after
    before = sum(pq.read_metadata(p).num_rows for p in paths)
    write(store, "limit_pools", fetched, ingested_at=datetime(2025, 7, 2, 20, 0, tzinfo=BEIJING))
    assert sum(pq.read_metadata(p).num_rows for p in paths) == before
