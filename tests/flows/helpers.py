"""Shared helpers for the flow tests: run a flow, read the ledger, hash the lake."""

from __future__ import annotations

import hashlib
import json
import math
from datetime import date
from pathlib import Path
from typing import Any

from pitlake import schemas
from pitlake.lake.canonical import SUPPLIED_BITEMPORAL
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.pit import KnownAtBasis

# Columns a run stamps on every row it stores (the store adds them; the caller supplies the
# rest of the bitemporal columns), and the basis whose known_at is the fetch instant itself.
PER_RUN_COLUMNS = tuple(c for c in schemas.BITEMPORAL_COLUMNS if c not in SUPPLIED_BITEMPORAL)
FETCH_INSTANT_BASIS = KnownAtBasis.FIRST_SEEN.value


def run_nightly(lake: Path, replay: Path, day: str, **kw: Any) -> Any:
    from pitlake.flows.nightly import nightly

    kw.setdefault("not_ready_delay_seconds", 0.0)
    return nightly(
        trade_date=day, source=f"replay:{replay}", lake=str(lake), return_state=True, **kw
    )


def run_backfill(lake: Path, replay: Path, start: str, end: str, **kw: Any) -> Any:
    from pitlake.flows.backfill import backfill

    return backfill(
        start=start, end=end, source=f"replay:{replay}", lake=str(lake), return_state=True, **kw
    )


def ledger(lake: Path, dataset: str, day: str, symbol: str = "*") -> Any:
    c = Catalog(lake_root=lake)
    try:
        return c.ledger_entry(dataset, date.fromisoformat(day), symbol)
    finally:
        c.close()


def summary(state: Any) -> dict[str, Any]:
    """The run summary a flow returned in its final state's data."""
    data = state.result(raise_on_failure=False)
    if isinstance(data, dict):
        return data
    raise AssertionError(f"no summary in state {state!r}: {data!r}")


def by_dataset(s: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["dataset"]: d for d in s["datasets"]}


def curated_hashes(lake: Path) -> dict[str, str]:
    return {
        str(p.relative_to(lake)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((lake / "curated").rglob("*.parquet"))
    }


def inject(replay: Path, vendor: str, endpoint: str, spec: dict[str, Any]) -> None:
    (replay / vendor / f"{endpoint}.error.json").write_text(json.dumps(spec))


def listed_on(replay: Path, day: str) -> int:
    """How many of a replay directory's issuers were listed on `day` (its Tushare
    stock_basic: from list_date to the day before delist_date): the whole-market rows of a
    session, derived rather than typed."""
    ymd = day.replace("-", "")
    rows = [
        json.loads(line)
        for line in (replay / "tushare" / "stock_basic.jsonl").read_text("utf-8").splitlines()
    ]
    return sum(
        1
        for r in rows
        if r["list_date"] <= ymd and not (r["delist_date"] and r["delist_date"] <= ymd)
    )


def _cell(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return _cell(value.tolist())
    if isinstance(value, list):
        return [_cell(v) for v in value]
    return value


def dataset_rows(lake: Path, dataset: str) -> list[str]:
    """Every stored row, sorted, without what a run stamps on it: the per-run columns, and
    known_at where it is the fetch instant (first seen)."""
    frame = LakeStore(lake).read_all(dataset).drop(columns=list(PER_RUN_COLUMNS))
    fetched = frame["known_at_basis"] == FETCH_INSTANT_BASIS
    frame["known_at"] = frame["known_at"].astype(object).where(~fetched, None)
    rows = [
        json.dumps({k: _cell(v) for k, v in row.items()}, sort_keys=True, default=str)
        for row in frame.to_dict("records")
    ]
    return sorted(rows)
