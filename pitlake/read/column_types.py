"""Which answer columns a file format cannot hold, said before writing (a user's SQL can
produce any DuckDB type; a writer failing half-way would be a lake fault, 503 / exit 1, for
what is the caller's choice of format)."""

from __future__ import annotations

import pyarrow as pa

# Arrow types Parquet (pyarrow's writer) has no physical type for.
_NOT_IN_PARQUET = (pa.types.is_interval, pa.types.is_union)
_NOT_IN_CSV = (pa.types.is_interval,)  # nested cells go as JSON text (commands.sql._flat)


def _holds(t: pa.DataType, bad: tuple) -> bool:
    if any(test(t) for test in bad):
        return True
    return any(_holds(t.field(i).type, bad) for i in range(t.num_fields))


def format_refusal(schema: pa.Schema, fmt: str) -> str | None:
    """One line naming the columns `fmt` ("parquet", "csv") cannot hold and what to do, or
    None when it can hold them all."""
    bad = _NOT_IN_PARQUET if fmt == "parquet" else _NOT_IN_CSV if fmt == "csv" else ()
    cols = [f"{f.name!r} ({f.type})" for f in schema if bad and _holds(f.type, bad)]
    if not cols:
        return None
    return (
        f"{fmt} cannot hold column(s) {', '.join(cols[:5])}: cast them in the statement "
        "(e.g. CAST(x AS VARCHAR)) or ask for json or arrow"
    )


def duplicate_names(schema: pa.Schema) -> str | None:
    """One line naming a column name the answer repeats (a table keys its columns by name)."""
    seen: set[str] = set()
    for name in schema.names:
        if name in seen:
            return (
                f"the statement answers two columns named {name!r}: give each its own name "
                "(SELECT … AS other_name)"
            )
        seen.add(name)
    return None
