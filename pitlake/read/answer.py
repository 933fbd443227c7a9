"""Answer assembly: a reader's Arrow table and gaps → the `Result` envelope (Arrow native;
JSON rows are built by `Result` only when asked), with the envelope's shared meta, and a
read's storage failure named in one line."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from pitlake.envelope import Result
from pitlake.errors import LakeCorruptError
from pitlake.lake.catalog_values import LedgerEntry
from pitlake.pit import iso_beijing
from pitlake.read.cutoff import Ask
from pitlake.read.status import Gap, LedgerView, gaps_meta, vendor_trace
from pitlake.records import latest_instant
from pitlake.schemas import BITEMPORAL_COLUMNS, Dataset
from pitlake.statuses import DateStatus, ResultStatus

if TYPE_CHECKING:
    import pandas as pd


def sources(data: pd.DataFrame | pa.Table) -> str | None:
    """The vendors that served the rows, comma-separated."""
    if isinstance(data, pa.Table):
        if "source" not in data.column_names:
            return None
        values = pc.unique(data.column("source")).to_pylist()
    else:
        if "source" not in data.columns:
            return None
        values = data["source"].dropna().unique().tolist()
    return ",".join(sorted({str(s) for s in values if s is not None})) or None


def meta(
    data: pd.DataFrame | pa.Table,
    ask: Ask,
    entries: Iterable[LedgerEntry | None],
    *,
    gaps: list[Gap],
    rows: int,
    view: LedgerView | None = None,
) -> dict[str, Any]:
    """The meta every data answer carries: rows, known_at_max, vendor_trace, pinned (and
    as_ingested, the gaps)."""
    known_max = None
    if len(data) and isinstance(data, pa.Table):
        known_max = latest_instant(data.column("known_at"))
    elif len(data):
        latest = data["known_at"].max()
        known_max = iso_beijing(latest) if latest is not None else None
    out: dict[str, Any] = {
        "rows": rows,
        "known_at_max": known_max,
        "vendor_trace": vendor_trace(entries, view, ask.cutoff.date()),
        "pinned": ask.pinned,
    }
    if ask.as_ingested is not None:
        out["as_ingested"] = iso_beijing(ask.as_ingested)
    out.update(gaps_meta(gaps))
    return out


def undated(
    frame: pa.Table,
    schema: Dataset,
    ask: Ask,
    status: ResultStatus,
    notes: list[str],
    gaps: list[Gap],
    entries: Iterable[LedgerEntry | None],
    *,
    requested_date: str | None = None,
    extra_meta: dict[str, Any] | None = None,
) -> Result:
    """The answer of a dataset whose answer is not about one session."""
    out = meta(frame, ask, list(entries), gaps=gaps, rows=len(frame))
    out.update(extra_meta or {})
    return Result(
        status=status,
        requested_date=requested_date,
        effective_trade_date=None,
        date_status=DateStatus.NOT_APPLICABLE,
        as_of=ask.as_of,
        source=sources(frame),
        message=" ".join(n for n in notes if n),
        table=frame,
        columns=[*schema.columns, *BITEMPORAL_COLUMNS],
        meta=out,
    )


def invalid(e: Exception) -> Result:
    return Result.invalid(str(e))


_QUOTED = re.compile(r"""['"]([^'"]+)['"]""")


def failed_file(message: str, root: object) -> str:
    """The stored file a DuckDB error names (a quoted Parquet path, or a quoted path inside
    the lake), else the lake itself."""
    quoted = _QUOTED.findall(message)
    for candidate in quoted:
        if candidate.endswith(".parquet"):
            return candidate
    base = str(root)
    for candidate in quoted:
        if candidate.startswith(base):
            return candidate
    return base


def named_failures(read: Callable[..., Result]) -> Callable[..., Result]:
    """A public read: a stored file the engine cannot read raises `LakeCorruptError` naming
    it, in one line, never a raw DuckDB error (the surfaces print it; HTTP answers 503)."""

    @functools.wraps(read)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Result:
        try:
            return read(self, *args, **kwargs)
        except duckdb.Error as e:
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            path = failed_file(str(e), self.root)
            raise LakeCorruptError(f"unreadable lake file {path}: {first}", path=path) from e

    return wrapper
