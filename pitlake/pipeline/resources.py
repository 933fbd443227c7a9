"""A run's resources: the store, the catalog and the vendor router (`RunEnv`), opened once per
process per run (`env_for`), and what the lake already says that planning asks about."""

from __future__ import annotations

import itertools
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd

from pitlake import schemas
from pitlake.calendar import now_beijing
from pitlake.expectations.warm import warm_up
from pitlake.lake.catalog import WHOLE_MARKET, Catalog
from pitlake.lake.catalog_repair import repair_partition_files
from pitlake.lake.fs import local_docs_dir, require_catalog_url
from pitlake.lake.lease import coordinator_for
from pitlake.lake.store import LakeStore
from pitlake.read.stored_calendar import extend_calendar_from_lake
from pitlake.statuses import LedgerStatus
from pitlake.vendors.registry import build_router, parse_source
from pitlake.vendors.router import Router


def new_run_id(flow: str, at: datetime | None = None) -> str:
    at = at or now_beijing()
    return f"{flow}-{at.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"


class RunEnv:
    """Everything a run touches: the store, the catalog and the vendor router."""

    def __init__(
        self,
        lake_root: str | Path,
        *,
        source: str | None = None,
        run_id: str,
        catalog_url: str | None = None,
        chains: dict[str, Sequence[str]] | None = None,
        capture_raw: bool | None = None,
        router: Router | None = None,
    ) -> None:
        warm_up()  # the gate's ~3-5 s of set-up overlaps the run's first calls (decision 62)
        self.store = LakeStore(lake_root)
        self.lake_root = self.store.root  # a Path, or an ObjectPath for an s3:// lake
        if self.store.remote:
            # No SQLite file or Data Docs beside objects: the catalog needs a URL, the docs a
            # local directory.
            catalog_url = require_catalog_url(catalog_url, self.lake_root)
            self.docs_root: Path = local_docs_dir(str(self.lake_root))
        else:
            self.lake_root.mkdir(parents=True, exist_ok=True)
            self.docs_root = self.lake_root
        self.source = source
        self.run_id = run_id
        self.catalog = Catalog(catalog_url, lake_root=None if self.store.remote else self.lake_root)
        # Each partition's read-merge-write-record also holds the partition in the catalog, so
        # ingest hosts sharing it cannot lose each other's rows (pitlake.lake.lease).
        self.store.coordinator = coordinator_for(self.catalog)
        # A writer killed inside a partition hold leaves its lease row naming it (issue 32).
        self.store.coordinator.release_dead_holders()
        extend_calendar_from_lake(self.store)  # sessions past the offline calendar, if stored
        self.store.sweep_orphans()  # temp files of writers killed mid-write (logged)
        # A writer killed between a file's rename and its catalog record (issue 32 item 2).
        repair_partition_files(self.store, self.catalog)
        # Raw capture keeps live answers so the lake can be rebuilt without refetching; a
        # replay source is already raw.
        spec = parse_source(source)
        self.capture_raw = spec.kind == "live" if capture_raw is None else capture_raw
        # Read from the stored rows, and kept while the dataset's files are unchanged (a
        # worker process of a Dask cluster sees another worker's writes: `_version`).
        self._owners: dict[str, tuple[Any, dict[str, str]]] = {}  # dataset → symbol → vendor
        self._universe: tuple[Any, tuple[str, ...]] | None = None
        (held,) = schemas.ONE_VENDOR_SERIES or (None,)  # the router holds one such series
        self.router = router or build_router(
            source,
            chains=chains,
            factor_owners=(lambda: self._owners_of(held)) if held else None,
        )
        self.raw_seq = itertools.count(1)  # raw-zone file numbers, in answer order

    # ------------------------------------------------------------ lake-derived context
    def _query(self, sql: str, dataset: str) -> list[tuple[Any, ...]]:
        files = [str(p) for p in self.store.files(dataset)]
        if not files:
            return []
        import duckdb

        con = duckdb.connect()
        self.store.fs.register(con)  # s3:// files: read through the store's filesystem
        try:
            return con.execute(sql, [files]).fetchall()
        finally:
            con.close()

    def _version(self, dataset: str) -> tuple[tuple[str, str], ...]:
        """The dataset's stored files as the catalog records them (partition, content hash):
        it changes with every write, whichever process or host made it."""
        return tuple((r.partition, r.sha256) for r in self.catalog.partition_files(dataset))

    def _owners_of(self, dataset: str) -> dict[str, str]:
        version = self._version(dataset)
        cached = self._owners.get(dataset)
        if cached is not None and cached[0] == version:
            return cached[1]
        rows = self._query(
            "SELECT symbol, arg_max(source, known_at) FROM read_parquet(?) GROUP BY symbol",
            dataset,
        )
        owners = {s: v for s, v in rows}
        self._owners[dataset] = (version, owners)
        return owners

    def series_owner(self, dataset: str, symbol: str) -> str | None:
        """The vendor that owns a symbol's stored series of a one-vendor-per-symbol dataset
        (adj_factors: one series, one vendor)."""
        return self._owners_of(dataset).get(symbol)

    def note_series_owners(self, dataset: str, frame: pd.DataFrame) -> None:
        owners = self._owners_of(dataset)
        first = frame.drop_duplicates("symbol")  # a chunk holds each symbol ~20 times
        for sym, src in zip(first["symbol"], first["source"], strict=True):
            owners.setdefault(str(sym), str(src))

    def universe(self) -> tuple[str, ...] | None:
        """The symbols of the security master known at the run (every symbol its stored rows
        name, delisted ones and listings after the window included: their news predates
        them): what per-symbol fetches ask about when a run names no symbols. Never another
        dataset's stored rows (a quotes write that failed would hide a symbol for good).
        None: no master stored (the vendors then refuse a per-symbol fetch). Read again
        whenever the master's files changed, by this process or another one."""
        version = self._version(schemas.SECURITY_MASTER)
        if self._universe is None or self._universe[0] != version:
            rows = self._query(
                "SELECT DISTINCT symbol FROM read_parquet(?) ORDER BY symbol",
                schemas.SECURITY_MASTER,
            )
            self._universe = (version, tuple(r[0] for r in rows))
        return self._universe[1] or None

    def forget_universe(self) -> None:
        self._universe = None

    def previous_row_count(self, dataset: str, session: date) -> int | None:
        """Rows of the last OK whole-market fetch before `session` (row-count warning)."""
        lo = session - timedelta(days=30)
        entries = [
            e
            for e in self.catalog.ledger_entries(dataset, lo, session - timedelta(days=1))
            if e.symbol == WHOLE_MARKET and e.status is LedgerStatus.OK
        ]
        return max(entries, key=lambda e: e.date_key).rows if entries else None

    def close(self) -> None:
        self.catalog.close()


@dataclass(frozen=True)
class EnvSpec:
    """How to open a run's environment: picklable, so it can travel to a Dask worker, which
    then opens its own store, catalog and router (`env_for`)."""

    lake: str
    run_id: str
    source: str | None = None
    catalog_url: str | None = None


_ENVS: dict[EnvSpec, RunEnv] = {}
_ENVS_LOCK = threading.Lock()


def env_for(spec: EnvSpec) -> RunEnv:
    """One RunEnv per spec per process (threads of a run share it)."""
    with _ENVS_LOCK:
        env = _ENVS.get(spec)
        if env is None:
            env = RunEnv(
                spec.lake, source=spec.source, run_id=spec.run_id, catalog_url=spec.catalog_url
            )
            _ENVS[spec] = env
        return env


def release(spec: EnvSpec) -> None:
    with _ENVS_LOCK:
        env = _ENVS.pop(spec, None)
    if env is not None:
        env.close()
