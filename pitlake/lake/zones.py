"""The lake's zones beside the curated partitions: the raw zone (vendor answers kept as-is, to
rebuild the lake without refetching) and quarantine (rejected batches with the gate's report),
and the directory names every zone lives under."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from pitlake.calendar import beijing
from pitlake.lake.parquet import lenient_table, parquet_bytes
from pitlake.pit import iso_beijing
from pitlake.schemas import get as get_schema

if TYPE_CHECKING:
    import pandas as pd

CURATED = "curated"
RAW = "raw"
QUARANTINE = "quarantine"
DQ = "dq"  # validation results and Data Docs (expectations.datadocs)
ZONES = (CURATED, RAW, QUARANTINE, DQ)

_SAFE_SEGMENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.@=\-]{0,199}$")
_SECRET_PARAM = re.compile(r"token|secret|password|passwd|api_?key|access_?key", re.IGNORECASE)

# Publishes a whole file: the store's atomic local write, or one PUT on object storage.
Put = Callable[[Any, bytes], None]


def safe_segment(value: object, what: str) -> str:
    """A single path component from a name we did not choose: no separators, no dot-dirs."""
    s = str(value)
    if not _SAFE_SEGMENT.match(s):
        raise ValueError(f"unsafe {what} {s!r} for a lake path")
    return s


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


class RawZone:
    """One file per vendor answer: raw/<vendor>/<endpoint>/fetch_date=<day>/<run>-<seq>."""

    def __init__(self, root: Any, put: Put) -> None:
        self.root = root
        self._put = put

    def path(
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

    def write(
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
        path = self.path(vendor, endpoint, fetched_at=fetched_at, run_id=run_id, seq=seq)
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


class QuarantineZone:
    """Rejected batches: quarantine/<dataset>/<run>/batch[-label].parquet + report[-label].json."""

    def __init__(self, root: Any, put: Put) -> None:
        self.root = root
        self._put = put

    def keep(
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
