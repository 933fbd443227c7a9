"""What a point-in-time SQL statement may be: exactly one read-only statement.

DuckDB's own parser decides (`duckdb.extract_statements` gives each statement's type), not a
regex: a SELECT (FROM-first, WITH, VALUES, DESCRIBE, SHOW, SUMMARIZE parse as SELECT) is the
only type accepted. COPY, EXPORT, ATTACH, INSTALL, LOAD, SET, PRAGMA, CREATE, a PIVOT that
creates types (MULTI) and a second statement are refused before anything runs. Reading files
is closed by the connection itself (`sql_shared.settings`/`lock`: no external access, no temp
directory); this check makes sure nothing but a query reaches it.
"""

from __future__ import annotations

import duckdb

ALLOWED = (duckdb.StatementType.SELECT,)


def refusal(query: str) -> str | None:
    """None when `query` is exactly one read-only statement; otherwise the one-line reason."""
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as e:
        return f"SQL error: {str(e).splitlines()[0]}"
    if len(statements) != 1:
        return (
            f"give exactly one SQL statement (got {len(statements)}); "
            "point-in-time SQL runs a single read-only SELECT"
        )
    kind = statements[0].type
    if kind not in ALLOWED:
        return (
            f"{kind.name} statements are refused: point-in-time SQL runs one read-only SELECT "
            "(WITH, VALUES, DESCRIBE, SHOW, SUMMARIZE) over its views and writes nothing"
        )
    return None


def single_select(query: str) -> bool:
    """The text is exactly one SELECT statement (SELECT, FROM-first, WITH, VALUES, DESCRIBE…)."""
    return refusal(query) is None
