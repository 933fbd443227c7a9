"""Recording vendor answers as replay files, so anything fetched can be replayed.

Every answer a live client gets is appended to `record_dir/<vendor>/<endpoint>[@adjust].jsonl`
as vendor-native rows plus the `_` tags replay needs to filter it (docs/replay-format.md).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from pitlake.vendors.replay.dialect import endpoint_key, tags_for

if TYPE_CHECKING:
    import pandas as pd


def _jsonable(value: Any) -> Any:
    import pandas as pd

    if value is None or value is pd.NaT:
        return None
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, pd.Timestamp | datetime):
        ts = pd.Timestamp(value)
        return ts.strftime("%Y-%m-%d") if ts == ts.normalize() else ts.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, str):
        return value
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


class Recorder:
    """Appends vendor answers as replay files (JSON lines, vendor-native columns + `_` tags)."""

    # One lock per file, shared by every recorder in the process (appends never interleave).
    _locks: ClassVar[dict[Path, threading.Lock]] = {}
    _locks_guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, root: str | Path, vendor: str) -> None:
        self.root = Path(root)
        self.vendor = vendor

    def _lock(self, path: Path) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(path, threading.Lock())

    def append(self, endpoint: str, params: Mapping[str, Any], frame: pd.DataFrame) -> Path | None:
        if frame is None or frame.empty or len(frame.columns) == 0:
            return None
        key = endpoint_key(self.vendor, endpoint, params)
        tags = {k: _jsonable(v) for k, v in tags_for(self.vendor, endpoint, params).items()}
        tags = {k: v for k, v in tags.items() if k not in frame.columns}
        lines = []
        for row in frame.to_dict(orient="records"):
            record = {str(k): _jsonable(v) for k, v in row.items()}
            record.update(tags)
            lines.append(json.dumps(record, ensure_ascii=False))
        path = self.root / self.vendor / f"{key}.jsonl"
        with self._lock(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
        return path
