"""A writer killed between a partition file's rename and its catalog record leaves the file
without its `partition_files` row; the repair run at the start of an ingest records it, and
drops rows whose file is gone (issue 32 item 2, decision 40)."""

from __future__ import annotations

from pitlake.lake.catalog import Catalog
from pitlake.lake.catalog_repair import repair_partition_files
from pitlake.lake.store import LakeStore

from .conftest import bar, write

A, B = "600000.SH", "000001.SZ"


def test_a_file_renamed_in_but_never_recorded_is_recorded(
    store: LakeStore, sqlite_catalog: Catalog
) -> None:
    # No coordinator: the store writes the files and records nothing, as a kill right after
    # the rename would leave it.
    write(store, "quotes", [bar(A, "2025-06-03", 1.0), bar(B, "2024-12-31", 2.0)], run_id="r1")
    assert sqlite_catalog.partition_files() == []
    sqlite_catalog.record_partition_file("quotes", "2019", "/gone/part.parquet", 1, "0" * 64)
    report = repair_partition_files(store, sqlite_catalog)
    assert report.recorded == ["quotes/2024", "quotes/2025"]
    assert report.dropped == ["quotes/2019"]
    rows = {r.partition: r for r in sqlite_catalog.partition_files("quotes")}
    assert sorted(rows) == ["2024", "2025"]
    part = store.partition_path("quotes", "2025")
    assert rows["2025"].sha256 == store.fs.sha256(part) and rows["2025"].rows == 1
    again = repair_partition_files(store, sqlite_catalog)  # agreeing: nothing to do
    assert again.recorded == [] and again.dropped == []


def test_a_file_replaced_after_its_record_is_recorded_again(
    store: LakeStore, sqlite_catalog: Catalog
) -> None:
    import os
    import time

    write(store, "quotes", [bar(A, "2025-06-03", 1.0)], run_id="r1")
    repair_partition_files(store, sqlite_catalog)
    (before,) = sqlite_catalog.partition_files("quotes")
    # the next write's rename lands, its record never does (the kill)
    write(store, "quotes", [bar(A, "2025-06-04", 1.1)], run_id="r2")
    part = store.partition_path("quotes", "2025")
    later = time.time() + 5  # past the timestamp skew allowance, as a later run would be
    os.utime(part, (later, later))
    report = repair_partition_files(store, sqlite_catalog)
    (after,) = sqlite_catalog.partition_files("quotes")
    assert report.recorded == ["quotes/2025"]
    assert after.sha256 == store.fs.sha256(part) != before.sha256 and after.rows == 2
