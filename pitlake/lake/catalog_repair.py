"""Make `partition_files` agree with the partition files on disk after a killed writer.

A partition file is renamed into the lake only after its batch passed the gate
(`pitlake.pipeline.commit` writes passing batches only), so a file on disk whose catalog row is
missing or stale (a SIGKILL between the rename and the record) holds gated rows: recording it
is safe. A row whose file is gone is dropped. Run at the start of an ingest (issue 32 item 2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import and_, delete

from pitlake.lake.catalog_tables import partition_files_table
from pitlake.schemas import DATASETS

# A file modified this close before its row's record is checked by hash all the same
# (filesystem timestamps are coarse on some systems).
SKEW = timedelta(seconds=2)


@dataclass
class CatalogRepair:
    """What a repair changed: partitions recorded again and rows dropped, as dataset/value."""

    recorded: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def _changed_since(path: Any, recorded_at: datetime) -> bool:
    """Whether a local file may differ from its row: modified after the row was recorded
    (a rename is followed by its record, so a file renamed and never recorded is newer than
    its old row). Hashing every file at each ingest start read the whole lake; a stat does
    not. An object-store file has no cheap stat here: it is hashed."""
    if not isinstance(path, Path):
        return True
    try:
        modified = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    except OSError:
        return True
    return modified >= recorded_at - SKEW


def repair_partition_files(store: Any, catalog: Any) -> CatalogRepair:
    """Record each on-disk partition file whose catalog row is missing or names another
    hash; drop each row whose file is gone."""
    report = CatalogRepair()
    rows = {(r.dataset, r.partition): r for r in catalog.partition_files()}
    on_disk: set[tuple[str, str]] = set()
    for dataset in DATASETS:
        for part in store.list_partitions(dataset):
            on_disk.add((dataset, part.value))
            row = rows.get((dataset, part.value))
            if row is not None and not _changed_since(part.path, row.recorded_at):
                continue
            sha = store.fs.sha256(part.path)
            if row is not None and row.sha256 == sha:
                continue
            n = store.fs.parquet(part.path).metadata.num_rows
            catalog.record_partition_file(dataset, part.value, str(part.path), n, sha)
            report.recorded.append(f"{dataset}/{part.value}")
    t = partition_files_table.c
    for key in sorted(set(rows) - on_disk):
        with catalog._tx(write=True) as conn:
            conn.execute(
                delete(partition_files_table).where(
                    and_(t.dataset == key[0], t.partition_value == key[1])
                )
            )
        report.dropped.append(f"{key[0]}/{key[1]}")
    return report
