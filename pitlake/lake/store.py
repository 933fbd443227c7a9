"""The lake's store: curated partitions (read, version, merge, write), and the raw and
quarantine zones beside them (docs/design.md §5). The versioning rule itself is
`pitlake.lake.versions`; encoding and atomic writes are `pitlake.lake.parquet`.

Each partition file is rewritten whole, under a per-partition file lock (read → merge → write),
through a temp file that is fsynced and renamed over the old one. A crash at any point leaves the
previous file; an unchanged partition is never rewritten, so re-ingesting identical data leaves
byte-identical files.

The root may also be an `s3://bucket/prefix` URL (see `pitlake.lake.fs`): then each write is
one PutObject of the whole file (atomic per object) under a local cross-process lock, made
conditional on the object that was read (If-Match, or If-None-Match for a new partition).

With a `coordinator` (`pitlake.lake.lease.coordinator_for(catalog)`), each partition's
read → merge → write → catalog record also holds the partition in the catalog (a PostgreSQL
advisory lock, or a fenced lease row), so writers on several machines cannot lose each other's
rows; the store then records each written partition file itself, inside that hold
(`WriteResult.recorded`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyarrow as pa

from pitlake.lake.canonical import canonical_batch, to_utc
from pitlake.lake.fs import (
    ANY,
    LakePath,
    ObjectChangedError,
    ObjectFS,
    ObjectPath,
    lake_root,
    open_fs,
)
from pitlake.lake.killpoints import kill_point
from pitlake.lake.parquet import atomic_write_bytes, conform, parquet_bytes, sorted_releasing
from pitlake.lake.tempfiles import sweep_orphans
from pitlake.lake.versions import new_versions, versions_matching
from pitlake.lake.zones import CURATED, ZONES, QuarantineZone, RawZone, safe_segment
from pitlake.schemas import Dataset
from pitlake.schemas import get as get_schema

if TYPE_CHECKING:  # the lease (SQLAlchemy tables) is for writes only
    import pandas as pd

    from pitlake.lake.lease import Coordinator, Holding

PART_FILE = "part.parquet"
# A conditional PUT that finds another writer's object starts the partition's read-merge-write
# over; with a coordinator this only follows a lost lease, so a few attempts are plenty.
CONFLICT_ATTEMPTS = 3
ENV_CONDITIONAL_PUT = "PITLAKE_S3_CONDITIONAL_PUT"


class Partition(NamedTuple):
    value: str
    path: LakePath


class PartitionFile(NamedTuple):
    """A partition file after a write: its value, path, row count and content hash."""

    value: str
    path: LakePath
    rows: int
    sha256: str


@dataclass
class WriteResult:
    dataset: str
    run_id: str
    rows_in: int = 0
    rows_added: int = 0
    revisions: int = 0  # added rows whose known_at became first_seen
    partitions: list[PartitionFile] = field(default_factory=list)  # every partition touched
    written: list[str] = field(default_factory=list)  # partition values whose file was replaced
    # True when the store recorded every written partition in the catalog itself, inside the
    # partition's hold (a store with a coordinator): the caller must not record them again.
    recorded: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.written)


class LakeStore:
    """Reads and writes the lake's files under `root` (a directory or an s3:// URL)."""

    def __init__(
        self,
        root: str | os.PathLike[str] | ObjectPath,
        *,
        coordinator: Coordinator | None = None,
    ) -> None:
        self.root: Any = lake_root(root)  # Path, or ObjectPath for a URL
        self.fs = open_fs(self.root)
        # pitlake.lake.lease.AdvisoryLocks or Leases: holds partitions across machines.
        self.coordinator = coordinator
        # For an S3-compatible store that rejects conditional PUTs: PITLAKE_S3_CONDITIONAL_PUT=0
        # (the catalog's holds still coordinate; a stale-read PUT is then not caught).
        self.conditional_put = os.environ.get(ENV_CONDITIONAL_PUT, "1").strip() != "0"
        self.raw = RawZone(self.root, self._put)
        self.quarantine = QuarantineZone(self.root, self._put)

    @property
    def remote(self) -> bool:
        return self.fs.remote

    def _put(self, path: LakePath, data: bytes, *, expect: str | object | None = ANY) -> None:
        """Publish a whole file: temp + fsync + rename locally, one PUT on object storage
        (conditional on `expect`, the ETag read or None for no object; see ObjectFS.put)."""
        if isinstance(self.fs, ObjectFS):
            self.fs.put(path, data, expect=expect)  # type: ignore[arg-type]
        else:
            atomic_write_bytes(path, data)  # type: ignore[arg-type]

    @contextmanager
    def _hold(self, dataset: str, value: str, directory: Any) -> Iterator[Holding | None]:
        """The partition's critical section: the local lock (writers on this machine), then
        the coordinator's hold (writers anywhere). Yields the holding, or None."""
        with self.fs.lock(directory):
            if self.coordinator is None:
                yield None
                return
            with self.coordinator.hold(dataset, value) as holding:
                yield holding

    # ------------------------------------------------------------ layout

    def dataset_dir(self, dataset: str) -> Any:
        return self.root / CURATED / get_schema(dataset).name

    def partition_dir(self, dataset: str, value: str) -> Any:
        name = get_schema(dataset).partitioning.name
        return self.dataset_dir(dataset) / f"{name}={safe_segment(value, 'partition value')}"

    def partition_path(self, dataset: str, value: str) -> Any:
        return self.partition_dir(dataset, value) / PART_FILE

    def dataset_glob(self, dataset: str) -> str:
        """A glob for every partition file of a dataset (hidden temp and lock files excluded)."""
        name = get_schema(dataset).partitioning.name
        return str(self.dataset_dir(dataset) / f"{name}=*" / PART_FILE)

    def list_partitions(self, dataset: str) -> list[Partition]:
        """Partitions that hold a file, sorted by value."""
        prefix = f"{get_schema(dataset).partitioning.name}="
        found = self.fs.partition_files(self.dataset_dir(dataset), prefix, PART_FILE)
        return [Partition(value, path) for value, path in found]

    def files(self, dataset: str, values: Iterable[str] | None = None) -> list[Any]:
        """Existing partition files, optionally only those whose value is in `values`."""
        parts = self.list_partitions(dataset)
        if values is not None:
            wanted = set(values)
            parts = [p for p in parts if p.value in wanted]
        return [p.path for p in parts]

    # ------------------------------------------------------------ reads (whole files)

    def read_partition(self, dataset: str, value: str) -> pd.DataFrame | None:
        path = self.partition_path(dataset, value)
        if not self.fs.is_file(path):
            return None
        return self.fs.parquet(path).read().to_pandas()

    def read_all(self, dataset: str) -> pd.DataFrame:
        """Every stored version of a dataset (all partitions), for tests and tools."""
        import pandas as pd

        schema = get_schema(dataset)
        frames = [self.fs.parquet(p.path).read().to_pandas() for p in self.list_partitions(dataset)]
        frames = [f for f in frames if len(f)]
        if not frames:
            return schema.empty_frame()
        return pd.concat(frames, ignore_index=True)

    # ------------------------------------------------------------ curated writes

    def write(
        self,
        dataset: str,
        frame: pd.DataFrame,
        *,
        run_id: str,
        ingested_at: datetime,
    ) -> WriteResult:
        """Append the new versions in `frame` (canonical columns + source, known_at,
        known_at_basis) to the dataset's partitions."""
        schema = get_schema(dataset)
        if not run_id or not isinstance(run_id, str):
            raise ValueError("run_id must be a non-empty string")
        ingested = to_utc(ingested_at, "ingested_at")
        result = WriteResult(dataset=schema.name, run_id=run_id, rows_in=len(frame))
        if frame.empty:
            return result
        batch = canonical_batch(schema, frame, run_id=run_id, ingested_at=ingested)
        if self._partition_follows_key(schema, batch):
            values = schema.partitioning.derive(batch).astype(str).to_numpy()
            for value in sorted(set(values)):
                sub = batch[values == value]
                for attempt in range(1, CONFLICT_ATTEMPTS + 1):
                    try:
                        self._write_partition(schema, value, sub, ingested, result)
                        break
                    except ObjectChangedError:
                        if attempt == CONFLICT_ATTEMPTS:
                            raise
        else:
            from pitlake.lake.lease import DATASET_WIDE

            with self._hold(schema.name, DATASET_WIDE, self.dataset_dir(schema.name)):
                existing = self._versions_of_keys(schema, batch)
                added, revisions = new_versions(schema, batch, existing, ingested)
                result.revisions += revisions
                values = (
                    schema.partitioning.derive(added).astype(str).to_numpy()
                    if len(added)
                    else np.array([], dtype=object)
                )
                for value in sorted(set(values)):
                    # A conflict here (an uncoordinated writer) fails the write: `added` was
                    # computed across partitions, so one partition cannot be redone alone.
                    with self._hold(
                        schema.name, value, self.partition_dir(schema.name, value)
                    ) as holding:
                        existing, _, etag = self._read_stored(schema, value)
                        self._merge_into_partition(
                            schema,
                            value,
                            [existing],
                            added[values == value],
                            result,
                            holding=holding,
                            etag=etag,
                        )
        result.recorded = self.coordinator is not None
        return result

    def _write_partition(
        self,
        schema: Dataset,
        value: str,
        sub: pd.DataFrame,
        ingested: pd.Timestamp,
        result: WriteResult,
    ) -> None:
        """One partition's read → merge → write (→ record) inside its hold."""
        with self._hold(schema.name, value, self.partition_dir(schema.name, value)) as holding:
            existing, existing_sha, etag = self._read_stored(schema, value)
            stored = versions_matching(existing, schema, sub)
            added, revisions = new_versions(schema, sub, stored, ingested)
            del stored
            held, existing = [existing], None  # handed over: freed while sorting
            self._merge_into_partition(
                schema,
                value,
                held,
                added,
                result,
                existing_sha=existing_sha,
                holding=holding,
                etag=etag,
            )
            result.revisions += revisions

    @staticmethod
    def _partition_follows_key(schema: Dataset, batch: pd.DataFrame) -> bool:
        """True when the partition is a function of the key (trade-date or period datasets):
        then every version of a key lives in one partition and a partition lock suffices."""
        try:
            schema.partitioning.derive(batch.head(1)[list(schema.key)])
        except KeyError:
            return False
        return True

    def _versions_of_keys(self, schema: Dataset, batch: pd.DataFrame) -> pd.DataFrame | None:
        """Stored versions of the batch's keys, wherever they are partitioned."""
        import pandas as pd

        cols = list(dict.fromkeys([*schema.key, *schema.value_columns, "known_at"]))
        frames = [
            versions_matching(self.fs.parquet(part.path).read(columns=cols), schema, batch)
            for part in self.list_partitions(schema.name)
        ]
        found = [f for f in frames if f is not None and len(f)]
        return pd.concat(found, ignore_index=True) if found else None

    def _read_stored(
        self, schema: Dataset, value: str
    ) -> tuple[pa.Table | None, str | None, str | object | None]:
        """A partition's table, and on object storage its content hash and ETag: the object is
        fetched once (one GET, no HEAD first), so an unchanged partition needs no second GET
        to report its hash, and the rewrite is a PUT conditional on that ETag (None: there was
        no object). Locally the hash is computed from the file only when needed."""
        path = self.partition_path(schema.name, value)
        if isinstance(self.fs, ObjectFS):
            got = self.fs.read_versioned(path)
            if got is None:
                return None, None, None if self.conditional_put else ANY
            data, etag = got
            import pyarrow.parquet as pq

            table = pq.ParquetFile(pa.BufferReader(data)).read()
            sha = hashlib.sha256(data).hexdigest()
            return conform(table, schema), sha, etag if self.conditional_put else ANY
        if not self.fs.is_file(path):
            return None, None, ANY
        return conform(self.fs.parquet(path).read(), schema), None, ANY

    def _merge_into_partition(
        self,
        schema: Dataset,
        value: str,
        held: list[pa.Table | None],
        added: pd.DataFrame,
        result: WriteResult,
        *,
        existing_sha: str | None = None,
        holding: Holding | None = None,
        etag: str | object | None = ANY,
    ) -> None:
        """Caller holds the partition lock (and `holding`, the coordinator's hold, if any).
        Rewrites the file only when rows were added; the hold is checked right before the
        write and the file is recorded in the catalog inside it.
        Concatenation and the sort run in Arrow: a nightly append to a year of the whole
        market must not round-trip a million rows through pandas.

        `held` is a one-item list holding the stored table (or None), which this method takes
        over: the caller keeps no reference, so the old columns are freed as the sorted ones
        are built and a partition rewrite peaks at about one copy of the partition, not two."""
        existing = held.pop()
        path = self.partition_path(schema.name, value)
        if not self.remote:  # object storage has no temp files: a PUT is all or nothing
            for stale in path.parent.glob(f".{PART_FILE}.*.tmp"):  # left by a crashed writer
                stale.unlink(missing_ok=True)
        if added.empty:
            if existing is not None:
                rows = existing.num_rows
                sha = existing_sha or self.fs.sha256(path)
                result.partitions.append(PartitionFile(value, path, rows, sha))
            return
        new = pa.Table.from_pandas(
            added[schema.all_columns], schema=schema.arrow_schema, preserve_index=False
        ).replace_schema_metadata(None)
        parts = [existing, new] if existing is not None else [new]
        del existing, new
        table = sorted_releasing(parts, schema.sort_columns)
        data = parquet_bytes(table)
        rows = table.num_rows
        del table
        if holding is not None:
            holding.verify()  # a lost lease stops here: no write, no record
        self._put(path, data, expect=etag)
        sha = hashlib.sha256(data).hexdigest()
        if holding is not None:
            # The kill suite's point between the rename and the record: nothing lies between.
            kill_point("after_rename", "before_record")
            holding.record_partition_file(
                schema.name, value, str(path), rows, sha, run_id=result.run_id
            )
            kill_point("after_record")
        else:
            kill_point("after_rename")  # recorded by the caller, after the whole write
        result.partitions.append(PartitionFile(value, path, rows, sha))
        result.written.append(value)
        result.rows_added += len(added)

    # ------------------------------------------------------------ maintenance

    def sweep_orphans(self) -> int:
        """Remove temp files left by killed writers in every zone (local lakes only: on object
        storage a write is one PUT and leaves nothing behind). See pitlake.lake.tempfiles."""
        if self.remote:
            return 0
        return sweep_orphans(self.root, ZONES)
