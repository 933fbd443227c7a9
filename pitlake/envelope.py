"""The answer envelope every read returns (docs/design.md §8); its statuses live in
pitlake/statuses.py."""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

from pitlake.statuses import BENIGN_ANSWER, RETRYABLE_STATUSES, DateStatus, ResultStatus

if TYPE_CHECKING:  # kept off the import path: the CLI's --help must stay fast
    import pandas as pd
    import pyarrow as pa


def _nested_as_arrow(t: Any) -> Any:
    """pandas' dtype for an Arrow type in `to_pandas()`: Arrow-backed for nested types (lists,
    structs, maps), numpy (None: pyarrow's default) for the rest."""
    import pandas as pd
    import pyarrow as pa

    if pa.types.is_nested(t):
        return pd.ArrowDtype(t)
    return None


class Result:
    """One answer: the rows plus everything an agent needs to trust (or distrust) them.

    The rows live as an Arrow table (`table`, in the dataset's stored schema) from the scan to
    the caller: `to_arrow()`, `to_pandas()` and `to_polars()` are columnar, and the JSON-ready
    row dicts (`rows`, also `data`) are built only when first asked for. A Result made from
    `data` rows alone (the calendar, a status answer) converts those rows instead."""

    def __init__(
        self,
        status: ResultStatus | str,
        requested_date: str | None = None,
        effective_trade_date: str | None = None,
        date_status: DateStatus | str = DateStatus.UNKNOWN,
        as_of: str | None = None,
        source: str | None = None,
        retryable: bool | None = None,
        message: str = "",
        data: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        *,
        table: pa.Table | None = None,
        columns: list[str] | None = None,
    ) -> None:
        self.status = ResultStatus(status)
        self.requested_date = requested_date
        self.effective_trade_date = effective_trade_date
        self.date_status = DateStatus(date_status)
        self.as_of = as_of
        self.source = source
        self.retryable = self.status in RETRYABLE_STATUSES if retryable is None else retryable
        self.message = message
        self.table = table
        self.columns = columns
        self._data = data if data is not None or table is not None else []
        self.meta = meta if meta is not None else {}
        self.meta.setdefault("rows", table.num_rows if table is not None else len(self._data))
        self.meta.setdefault("known_at_max", None)
        self.meta.setdefault("vendor_trace", [])
        self.meta.setdefault("pinned", False)

    # ------------------------------------------------------------ rows (JSON)

    @property
    def data(self) -> list[dict[str, Any]]:
        """The JSON-ready rows (dates 'YYYY-MM-DD', instants ISO +08:00, stored JSON text as
        text), built from the table on first use."""
        if self._data is None:
            from pitlake.records import to_records

            self._data = to_records(self.table, self.columns) if self.table is not None else []
        return self._data

    @data.setter
    def data(self, rows: list[dict[str, Any]]) -> None:
        self._data, self.table = rows, None

    rows = data

    # ------------------------------------------------------------ columnar forms

    def raise_if_failed(self) -> None:
        """The Python contract of every read's frame forms: an OK or NO_DATA answer converts,
        and so does any answer holding rows (partial, its gaps in meta); a failure without
        rows raises its typed error (InvalidArgumentsError, or AnswerUnavailableError with
        the status) rather than becoming an empty frame that looks like "nothing happened"."""
        if self.status in (ResultStatus.OK, ResultStatus.NO_DATA):
            return
        rows = self.table.num_rows if self.table is not None else len(self._data or [])
        if rows and self.status is not ResultStatus.INVALID_ARGUMENTS:
            return
        from pitlake.errors import AnswerUnavailableError, InvalidArgumentsError

        message = self.message or self.status.value
        if self.status is ResultStatus.INVALID_ARGUMENTS:
            raise InvalidArgumentsError(message)
        raise AnswerUnavailableError(
            f"{self.status.value}: {message}",
            status=self.status,
            retryable=self.retryable,
            envelope=self.envelope(),
        )

    def to_arrow(self) -> pa.Table:
        """The answer as Arrow: the dataset's types (dates as date32, instants tz-aware in
        Beijing time, `seats`/`extra` nested), NaN as null, and the envelope (without rows)
        as JSON in the schema metadata under `pitlake.envelope`. A failed answer without rows
        raises (`raise_if_failed`)."""
        self.raise_if_failed()
        return self.arrow_table()

    def arrow_table(self) -> pa.Table:
        """`to_arrow` without the failure check, for the surfaces that carry the envelope
        beside the table themselves (HTTP Arrow/Parquet, the CLI's files)."""
        import pyarrow as pa

        from pitlake.records import columnar

        if self.table is not None:
            table = columnar(self.table, self.columns)
        else:
            table = pa.Table.from_pylist(self._data or [])
        meta = {ENVELOPE_METADATA_KEY: json.dumps(self.envelope(), ensure_ascii=False)}
        return table.replace_schema_metadata(meta)

    def to_pandas(self, dtype_backend: str = "numpy") -> pd.DataFrame:
        """The answer as a DataFrame (from `to_arrow()`); the envelope is in `.attrs["pitlake"]`.

        `dtype_backend="numpy"` (pandas' default): float64 with NaN for missing, dates as
        `datetime.date`, instants `datetime64[us, Asia/Shanghai]`; the nested columns
        (`seats`, `extra`) stay Arrow-backed (`pd.ArrowDtype`): a cell still reads as a Python
        list or dict, and `.struct` / `.list` work on the column, but no Python object is built
        per cell up front (for 788k statement versions, building a dict per `extra` cell took
        1.2 s of a 1.5 s conversion). `"pyarrow"`: every column keeps its Arrow type
        (`pd.ArrowDtype`, missing values are NA)."""
        if dtype_backend not in ("numpy", "pyarrow"):
            raise ValueError(f"dtype_backend must be 'numpy' or 'pyarrow', got {dtype_backend!r}")
        import pandas as pd

        table = self.to_arrow()  # raises for a failed answer without rows
        if dtype_backend == "pyarrow":
            frame = table.to_pandas(types_mapper=pd.ArrowDtype)
        else:
            frame = table.to_pandas(types_mapper=_nested_as_arrow)
        frame.attrs["pitlake"] = self.envelope()
        return frame

    def to_polars(self) -> Any:
        """The answer as a polars DataFrame (polars is optional)."""
        self.raise_if_failed()
        try:
            import polars as pl
        except ImportError as e:
            raise ImportError(
                "Result.to_polars() needs polars, which is not installed: pip install polars"
            ) from e
        return pl.from_arrow(self.to_arrow())

    # ------------------------------------------------------------ envelope

    @property
    def ok(self) -> bool:
        return self.status in BENIGN_ANSWER

    def envelope(self) -> dict[str, Any]:
        """Every envelope field but the rows (what headers and Arrow metadata carry)."""
        return {
            "status": str(self.status),
            "requested_date": self.requested_date,
            "effective_trade_date": self.effective_trade_date,
            "date_status": str(self.date_status),
            "as_of": self.as_of,
            "source": self.source,
            "retryable": bool(self.retryable),
            "message": self.message,
            "meta": copy.deepcopy(self.meta),
        }

    def to_dict(self) -> dict[str, Any]:
        d = self.envelope()
        d["data"] = copy.deepcopy(self.data)
        return {k: d[k] for k in ENVELOPE_FIELDS}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Result(status={self.status!s}, rows={self.meta.get('rows')}, "
            f"effective_trade_date={self.effective_trade_date!r}, as_of={self.as_of!r})"
        )

    @classmethod
    def invalid(cls, message: str, **kw: Any) -> Result:
        return cls(status=ResultStatus.INVALID_ARGUMENTS, message=message, retryable=False, **kw)


ENVELOPE_FIELDS: tuple[str, ...] = (
    "status",
    "requested_date",
    "effective_trade_date",
    "date_status",
    "as_of",
    "source",
    "retryable",
    "message",
    "data",
    "meta",
)
# The Arrow schema-metadata key (and Parquet key-value key) holding the envelope as JSON.
ENVELOPE_METADATA_KEY = "pitlake.envelope"
