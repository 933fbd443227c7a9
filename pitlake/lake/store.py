"""The Parquet side of the lake: curated partitions, the raw zone and quarantine (docs/design.md §5).

Curated data is append-only and versioned. A batch row whose key already holds a version with
the same values adds nothing; a changed row becomes a new version. When a changed row carries no
vendor date later than what we already stored, nothing dates the change, so it is known from the
moment we first saw it (`known_at = ingested_at`, basis `first_seen`): history then keeps
answering with the figures as first stored.

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
import json
import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pitlake.calendar import beijing
from pitlake.lake.fs import (
    ANY,
    LakePath,
    ObjectChangedError,
    ObjectFS,
    ObjectPath,
    file_sha256,
    lake_root,
    open_fs,
)
from pitlake.lake.lease import DATASET_WIDE, Coordinator, Holding
from pitlake.lake.tempfiles import sweep_orphans, temp_path_for
from pitlake.pit import KnownAtBasis, iso_beijing, latest_admissible_known_at
from pitlake.schemas import Dataset
from pitlake.schemas import get as get_schema

CURATED = "curated"
RAW = "raw"
QUARANTINE = "quarantine"
DQ = "dq"  # validation results and Data Docs (expectations.datadocs)
PART_FILE = "part.parquet"
# Row groups small enough that min/max statistics on the sort columns prune a one-symbol read.
ROW_GROUP_SIZE = 131_072
COMPRESSION = "zstd"
# A float column whose first DICTIONARY_SAMPLE_ROWS hold more distinct values than this share
# is written without a dictionary. Near-unique floats (amount, volume, pct_chg, turnover) fill
# pyarrow's 1 MiB dictionary page, fall back to plain pages, and make every reader decode both;
# tick prices repeat and keep theirs. Measured on a year of synthetic quotes: a one-symbol DuckDB
# read 9.6 → 6.3 ms, and the file 32.3 → 28.8 MiB.
DICTIONARY_MAX_DISTINCT_SHARE = 0.5
DICTIONARY_SAMPLE_ROWS = 16_384
# Columns a caller supplies; the store adds ingested_at and run_id.
SUPPLIED_BITEMPORAL = ("source", "known_at", "known_at_basis")
__all__ = ["LakeStore", "WriteResult", "atomic_write_bytes", "file_sha256", "parquet_bytes"]

_SAFE_SEGMENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.@=\-]{0,199}$")
_SECRET_PARAM = re.compile(r"token|secret|password|passwd|api_?key|access_?key", re.IGNORECASE)
_SEQ = "__seq"
_STORED_MAX = "__stored_known_at"
_REVISED = "__revised"
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


# ---------------------------------------------------------------- file primitives


def safe_segment(value: object, what: str) -> str:
    """A single path component from a name we did not choose: no separators, no dot-dirs."""
    s = str(value)
    if not _SAFE_SEGMENT.match(s):
        raise ValueError(f"unsafe {what} {s!r} for a lake path")
    return s


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _publish(tmp: Path, final: Path) -> None:
    """The commit point of a write: rename the synced temp file over the old one."""
    os.replace(tmp, final)
    _fsync_dir(final.parent)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see the old file or the new one, never a mix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_for(path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        _publish(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _leaf_paths(name: str, typ: pa.DataType) -> list[str]:
    """Parquet column paths under one Arrow field (what `use_dictionary` names)."""
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        return _leaf_paths(f"{name}.list.element", typ.value_type)
    if pa.types.is_struct(typ):
        return [p for f in typ for p in _leaf_paths(f"{name}.{f.name}", f.type)]
    return [name]


def dictionary_columns(table: pa.Table) -> bool | list[str]:
    """Which columns get dictionary pages: all, except near-unique floats."""
    sample = table.slice(0, DICTIONARY_SAMPLE_ROWS)
    dense = {
        f.name
        for f in sample.schema
        if pa.types.is_floating(f.type)
        and sample.num_rows
        and pc.count_distinct(sample.column(f.name)).as_py()
        > sample.num_rows * DICTIONARY_MAX_DISTINCT_SHARE
    }
    if not dense:
        return True
    return [p for f in table.schema if f.name not in dense for p in _leaf_paths(f.name, f.type)]


def parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(
        table,
        sink,
        compression=COMPRESSION,
        row_group_size=ROW_GROUP_SIZE,
        use_dictionary=dictionary_columns(table),
    )
    return sink.getvalue().to_pybytes()


def _to_utc(value: datetime | pd.Timestamp, what: str) -> pd.Timestamp:
    ts = pd.Timestamp(value)
    if ts.tzinfo is None:
        raise ValueError(f"{what} must be timezone-aware, got naive {value!r}")
    return ts.tz_convert("UTC").as_unit("us")


# ---------------------------------------------------------------- canonical batches


def _date_series(s: pd.Series, name: str) -> pd.Series:
    if s.dtype == object:
        try:  # the usual case, datetime.date objects: Arrow checks them in C
            pa.array(s, type=pa.date32(), from_pandas=True)
            if not s.map(lambda v: isinstance(v, datetime)).any():
                return s
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
        if s.map(lambda v: v is None or isinstance(v, date)).all():
            return s.map(lambda v: v.date() if isinstance(v, datetime) else v)
    parsed = pd.to_datetime(s, errors="raise")
    if getattr(parsed.dt, "tz", None) is not None:
        raise ValueError(f"column {name}: expected dates, got timestamps with a zone")
    return parsed.dt.date.astype(object).where(parsed.notna(), None)


def _timestamp_series(s: pd.Series, name: str) -> pd.Series:
    if isinstance(s.dtype, pd.DatetimeTZDtype):
        return s.dt.tz_convert("UTC").astype("datetime64[us, UTC]")
    if s.isna().all():  # no instants at all (e.g. a feed without publish times)
        return pd.Series(pd.NaT, index=s.index, dtype="datetime64[us, UTC]")
    if pd.api.types.is_datetime64_dtype(s.dtype):
        raise ValueError(f"column {name}: naive timestamps; the lake stores UTC instants")
    naive = s.map(lambda v: isinstance(v, datetime) and v.tzinfo is None)
    if naive.any() or s.map(lambda v: isinstance(v, str)).any():
        raise ValueError(f"column {name}: expected timezone-aware instants")
    return pd.to_datetime(s, utc=True).astype("datetime64[us, UTC]")


def canonical_batch(
    schema: Dataset, frame: pd.DataFrame, *, run_id: str, ingested_at: pd.Timestamp
) -> pd.DataFrame:
    """Caller's frame → the exact dtypes a partition read returns, bitemporal columns filled.

    Raises ValueError on missing columns, null keys, naive instants, or a known_at after
    ingestion (a fact cannot be public after we stored it: that would be a future timestamp)."""
    needed = [*schema.columns, *SUPPLIED_BITEMPORAL]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ValueError(f"{schema.name}: missing columns {missing}")
    df = frame[needed].copy()
    for f in schema.fields:
        if pa.types.is_date32(f.type):
            df[f.name] = _date_series(df[f.name], f.name)
        elif pa.types.is_timestamp(f.type):
            df[f.name] = _timestamp_series(df[f.name], f.name)
    df["known_at"] = _timestamp_series(df["known_at"], "known_at")
    null_cols = [c for c in (*schema.key, *SUPPLIED_BITEMPORAL) if df[c].isna().any()]
    if null_cols:
        raise ValueError(f"{schema.name}: null values in required columns {null_cols}")
    # Date-only facts (day_end, announcement, …) fetched during their own Beijing day carry
    # that day's end; any other known_at after ingestion is a future stamp.
    late = df["known_at"] > latest_admissible_known_at(df["known_at_basis"], ingested_at)
    if late.any():
        first = df.loc[late, "known_at"].iloc[0]
        raise ValueError(
            f"{schema.name}: known_at {iso_beijing(first)} is after ingested_at "
            f"{iso_beijing(ingested_at)}; future timestamps are rejected"
        )
    df["ingested_at"] = pd.Series(ingested_at, index=df.index).astype("datetime64[us, UTC]")
    df["run_id"] = run_id
    table = schema.to_arrow(df)
    out = table.to_pandas()
    out[_SEQ] = np.arange(len(out))
    return out


def _comparable(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Columns in a form pandas can match exactly: NaN matches NaN, -0.0 matches 0.0, and
    list values (Arrow lists come back as arrays) become JSON text."""
    out = pd.DataFrame(index=frame.index)
    for c in columns:
        s = frame[c]
        if pd.api.types.is_float_dtype(s.dtype):
            s = s + 0.0
        elif s.dtype == object and s.map(lambda v: isinstance(v, (list, tuple, np.ndarray))).any():
            s = s.map(lambda v: None if v is None else json.dumps(list(v), default=str))
        out[c] = s
    return out.reset_index(drop=True)


def new_versions(
    schema: Dataset,
    incoming: pd.DataFrame,
    existing: pd.DataFrame | None,
    ingested_at: pd.Timestamp,
) -> tuple[pd.DataFrame, int]:
    """The rows of `incoming` that are new versions, with the revision rule applied.

    Returns (rows to append, how many of them were re-dated to first_seen)."""
    key = list(schema.key)
    cmp_cols = key + schema.value_columns
    inc = incoming.sort_values(["known_at", _SEQ], kind="stable")
    inc_cmp = _comparable(inc, cmp_cols)
    # The same values twice in one batch: keep the earliest publication.
    fresh = ~inc_cmp.duplicated(keep="first").to_numpy()
    inc, inc_cmp = inc[fresh], inc_cmp[fresh]
    has_existing = existing is not None and len(existing) > 0
    if has_existing:
        ex_cmp = _comparable(existing, cmp_cols).drop_duplicates()
        hit = inc_cmp.merge(ex_cmp, on=cmp_cols, how="left", indicator=True)["_merge"]
        inc = inc[(hit == "left_only").to_numpy()]
    if inc.empty:
        return inc.drop(columns=[_SEQ]), 0
    if has_existing:
        stored = existing.groupby(key, sort=False)["known_at"].max().rename(_STORED_MAX)
        inc = inc.merge(stored.reset_index(), on=key, how="left")
    else:
        inc = inc.assign(
            **{_STORED_MAX: pd.Series(pd.NaT, index=inc.index, dtype="datetime64[us, UTC]")}
        )
    inc = inc.sort_values([*key, "known_at", _SEQ], kind="stable").reset_index(drop=True)
    prev = inc.groupby(key, sort=False)["known_at"].shift(1)
    undatable = (inc["known_at"] <= inc[_STORED_MAX]).fillna(False) | (
        inc["known_at"] <= prev
    ).fillna(False)
    # Once a key's change is undatable, every later change of it in this batch is too.
    undatable = undatable.astype("int8").groupby([inc[k] for k in key], sort=False).cummax()
    undatable = undatable.astype(bool).to_numpy()
    # first_seen, but never at or before the version it supersedes: a date-only version
    # (end of day) may sort after a same-day ingestion instant.
    floor = pd.concat([inc[_STORED_MAX], prev], axis=1).max(axis=1) + pd.Timedelta(microseconds=1)
    seen = pd.Series(ingested_at, index=inc.index).astype("datetime64[us, UTC]")
    first_seen = seen.where(floor.isna() | (seen > floor), floor)
    inc.loc[undatable, "known_at"] = first_seen[undatable]
    inc.loc[undatable, "known_at_basis"] = KnownAtBasis.FIRST_SEEN.value
    inc[_REVISED] = undatable
    # Several undatable changes of one key in one batch: the last one is the vendor's current.
    inc = inc.drop_duplicates([*key, "known_at"], keep="last")
    if has_existing:
        clash = inc[[*key, "known_at"]].merge(existing[[*key, "known_at"]], on=[*key, "known_at"])
        if len(clash):
            raise ValueError(
                f"{schema.name}: a different version of {clash.iloc[0][key].to_dict()} is already "
                f"stored at {iso_beijing(clash.iloc[0]['known_at'])}; ingested_at must advance "
                "between writes"
            )
    revisions = int(inc[_REVISED].sum())
    return inc.drop(columns=[_SEQ, _STORED_MAX, _REVISED]), revisions


def conform(table: pa.Table, schema: Dataset) -> pa.Table:
    """A stored table in exactly the current schema (columns added later read as null)."""
    target = schema.arrow_schema
    if table.schema.equals(target, check_metadata=False):
        return table.replace_schema_metadata(None)
    arrays = [
        table[f.name].cast(f.type) if f.name in table.column_names else pa.nulls(len(table), f.type)
        for f in target
    ]
    return pa.Table.from_arrays(arrays, schema=target)


def _versions_matching(
    table: pa.Table | None, schema: Dataset, batch: pd.DataFrame
) -> pd.DataFrame | None:
    """The stored rows whose key columns each take a value seen in `batch` (a superset of the
    batch's keys, filtered in Arrow), as pandas for the version comparison."""
    if table is None or table.num_rows == 0:
        return None
    mask = None
    for k in schema.key:
        values = pa.array(pd.unique(batch[k]).tolist(), type=table.schema.field(k).type)
        hit = pc.is_in(table[k], value_set=values)
        mask = hit if mask is None else pc.and_(mask, hit)
    found = table.filter(mask)
    return found.to_pandas() if found.num_rows else None


def _sorted_releasing(parts: list[pa.Table], sort_columns: list[str]) -> pa.Table:
    """concat_tables(parts).sort_by(sort_columns), the same rows in the same (stable) order,
    built one column at a time, each source column dropped once its sorted copy exists. With
    `parts` the only reference to the tables (emptied here), the peak is one copy of the data
    plus one column rather than two copies: a whole-market year partition is ~200 MiB."""
    merged = pa.concat_tables(parts)
    parts.clear()
    order = pc.sort_indices(merged, sort_keys=[(c, "ascending") for c in sort_columns])
    schema = merged.schema
    columns: list[pa.ChunkedArray | None] = list(merged.columns)
    del merged
    out: list[pa.ChunkedArray] = []
    for i, column in enumerate(columns):
        assert column is not None
        out.append(column.take(order))
        columns[i] = column = None
    return pa.Table.from_arrays(out, schema=schema)


# ---------------------------------------------------------------- the store


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
        ingested = _to_utc(ingested_at, "ingested_at")
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
            stored = _versions_matching(existing, schema, sub)
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
        cols = list(dict.fromkeys([*schema.key, *schema.value_columns, "known_at"]))
        frames = [
            _versions_matching(self.fs.parquet(part.path).read(columns=cols), schema, batch)
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
        table = _sorted_releasing(parts, schema.sort_columns)
        data = parquet_bytes(table)
        rows = table.num_rows
        del table
        if holding is not None:
            holding.verify()  # a lost lease stops here: no write, no record
        self._put(path, data, expect=etag)
        sha = hashlib.sha256(data).hexdigest()
        if holding is not None:
            holding.record_partition_file(
                schema.name, value, str(path), rows, sha, run_id=result.run_id
            )
        result.partitions.append(PartitionFile(value, path, rows, sha))
        result.written.append(value)
        result.rows_added += len(added)

    # ------------------------------------------------------------ raw zone

    def raw_path(
        self, vendor: str, endpoint: str, *, fetched_at: datetime, run_id: str, seq: int
    ) -> Any:
        if not isinstance(seq, int) or seq < 0:
            raise ValueError(f"seq must be a non-negative int, got {seq!r}")
        day = beijing(fetched_at).date().isoformat()
        return (
            self.root
            / RAW
            / safe_segment(vendor, "vendor")
            / safe_segment(endpoint, "endpoint")
            / f"fetch_date={day}"
            / f"{safe_segment(run_id, 'run_id')}-{seq}.parquet"
        )

    def sweep_orphans(self) -> int:
        """Remove temp files left by killed writers in every zone (local lakes only: on object
        storage a write is one PUT and leaves nothing behind). See pitlake.lake.tempfiles."""
        if self.remote:
            return 0
        return sweep_orphans(self.root, (CURATED, RAW, QUARANTINE, DQ))

    def write_raw(
        self,
        vendor: str,
        endpoint: str,
        params: Mapping[str, Any],
        frame: pd.DataFrame,
        *,
        fetched_at: datetime,
        run_id: str,
        seq: int,
    ) -> Any:
        """Keep one vendor answer as-is (vendor-native columns), with the call's parameters
        (secrets dropped) and fetch time in the Parquet key-value metadata."""
        if fetched_at.tzinfo is None:
            fetched_at = beijing(fetched_at)
        path = self.raw_path(vendor, endpoint, fetched_at=fetched_at, run_id=run_id, seq=seq)
        table = lenient_table(frame)
        meta = dict(table.schema.metadata or {})
        meta.update(
            {
                b"pitlake.vendor": vendor.encode(),
                b"pitlake.endpoint": endpoint.encode(),
                b"pitlake.params": json_text(scrub_params(params)).encode(),
                b"pitlake.fetched_at": iso_beijing(fetched_at).encode(),  # type: ignore[union-attr]
                b"pitlake.run_id": run_id.encode(),
            }
        )
        self._put(path, parquet_bytes(table.replace_schema_metadata(meta)))
        return path

    # ------------------------------------------------------------ quarantine

    def quarantine(
        self,
        dataset: str,
        run_id: str,
        frame: pd.DataFrame,
        report: Mapping[str, Any],
        *,
        label: str | None = None,
    ) -> Any:
        """Keep a rejected batch and the reason. Returns the batch file's path; `report.json`
        sits beside it. `label` distinguishes several rejected batches of one run."""
        schema = get_schema(dataset)
        directory = self.root / QUARANTINE / schema.name / safe_segment(run_id, "run_id")
        suffix = f"-{safe_segment(label, 'label')}" if label else ""
        batch_path = directory / f"batch{suffix}.parquet"
        self._put(batch_path, parquet_bytes(lenient_table(frame)))
        self._put(directory / f"report{suffix}.json", json_text(report, indent=2).encode())
        return batch_path


# ---------------------------------------------------------------- helpers for raw data


def scrub_params(value: Any) -> Any:
    """Drop any parameter named like a secret (token, password, api key), at any depth."""
    if isinstance(value, Mapping):
        return {
            str(k): scrub_params(v) for k, v in value.items() if not _SECRET_PARAM.search(str(k))
        }
    if isinstance(value, list | tuple):
        return [scrub_params(v) for v in value]
    return value


def json_text(value: Any, *, indent: int | None = None) -> str:
    def default(v: Any) -> Any:
        if isinstance(v, datetime):
            return iso_beijing(v) if v.tzinfo else v.isoformat()
        if isinstance(v, date):
            return v.isoformat()
        if isinstance(v, np.generic):
            return v.item()
        return str(v)

    return json.dumps(value, default=default, ensure_ascii=False, sort_keys=True, indent=indent)


def _plain(v: Any) -> str | None:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NaT:
        return None
    return str(v)


def lenient_table(frame: pd.DataFrame) -> pa.Table:
    """Any frame → Arrow, column by column; a column Arrow cannot type becomes text.
    Column names become strings; repeated names get a `.N` suffix."""
    names: list[str] = []
    arrays: list[pa.Array] = []
    seen: dict[str, int] = {}
    for i, col in enumerate(frame.columns):
        name = str(col)
        if name in seen:
            seen[name] += 1
            name = f"{name}.{seen[name]}"
        else:
            seen[name] = 0
        s = frame.iloc[:, i]
        try:
            arr = pa.array(s, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            arr = pa.array([_plain(v) for v in s], type=pa.string())
        names.append(name)
        arrays.append(arr)
    return pa.Table.from_arrays(arrays, names=names)
