"""A trade-dated dataset's `<dataset>_versions` relation that answers a one-session statement
from the Lake's kept session instead of decoding the year file.

`SELECT … FROM quotes WHERE trade_date = D` over the Arrow dataset decoded every row of the
symbol-sorted year file (1.2M rows, 16 columns) to keep D's 5,000: 1.2–1.4× the same query by
hand on the files, where DuckDB's own Parquet reader decodes faster. The Lake already keeps
each session's stored versions per file identity (`scans.window_slices`, the cross-section
reads' rows). DuckDB hands a registered pyarrow dataset the filters it pushes down by calling
its class's `scanner(columns=, filter=)`, so this subclass of `FileSystemDataset` sees them:
when the pushed filter is exactly `<date column> == D` (compared with `Expression.equals`; the
text only names the candidate D), the scan is over D's kept rows, with the cutoff applied to
them as to the files; any other filter, or none, scans the files as before. The kept rows are
every stored version of D (facts of the files, no cutoff), so both scans hold the same rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

# the text pyarrow gives `field == date32 scalar`; only a candidate, checked with equals()
_ONE_DAY = re.compile(r"\((?P<field>[A-Za-z_][A-Za-z0-9_]*) == (?P<day>\d{4}-\d{2}-\d{2})\)")

SessionRows = Callable[[date], pa.Table | None]


class SessionedDataset(ds.FileSystemDataset):
    """The files' rows visible by the cutoff (`visible`), scanned from the kept session rows
    (`session(day)`, None: not kept, scan the files) when a scan asks for one day."""

    visible: pc.Expression
    date_column: str
    session: SessionRows

    @classmethod
    def over(
        cls,
        files: ds.FileSystemDataset,
        visible: pc.Expression,
        date_column: str,
        session: SessionRows,
    ) -> SessionedDataset:
        out = cls(list(files.get_fragments()), files.schema, files.format, files.filesystem)
        out.visible, out.date_column, out.session = visible, date_column, session
        return out

    def scanner(self, columns: Any = None, filter: Any = None, **kw: Any) -> ds.Scanner:
        wanted = self.visible if filter is None else self.visible & filter
        day = self._one_day(filter)
        rows = self.session(day) if day is not None else None
        kept = _typed(rows, self.schema) if rows is not None else None
        if kept is not None:
            return ds.dataset(kept).scanner(columns=columns, filter=wanted, **kw)
        return super().scanner(columns=columns, filter=wanted, **kw)

    def _one_day(self, filter: Any) -> date | None:
        """D when the filter is exactly `<date column> == D`."""
        if filter is None:
            return None
        found = _ONE_DAY.fullmatch(str(filter))
        if found is None or found["field"] != self.date_column:
            return None
        try:
            day = date.fromisoformat(found["day"])
        except ValueError:
            return None
        same = pc.field(self.date_column) == pa.scalar(day, pa.date32())
        return day if filter.equals(same) else None


def _typed(rows: pa.Table, schema: pa.Schema) -> pa.Table | None:
    """The kept rows in the relation's declared types (text as dictionaries where declared);
    None when they do not convert (the files are scanned instead)."""
    if set(rows.schema.names) != set(schema.names):
        return None
    try:
        return rows.select(schema.names).replace_schema_metadata(None).cast(schema)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
