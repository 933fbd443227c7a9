"""`Lake.sql`: one statement over the point-in-time views (sql.py builds them), run under the
statement limits (sql_limits.py) and answered as a Result. A bad statement, one reaching for a
file, or one past a limit is INVALID_ARGUMENTS naming why; a busy or interrupted one is
RATE_LIMITED."""

from __future__ import annotations

import threading
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa

from pitlake.envelope import Result
from pitlake.read.column_types import duplicate_names
from pitlake.read.sql import (
    ADJUSTED_VIEWS,
    RELATIONS,
    _coverage,
    connect,
    kept_session,
    populate,
    referenced,
    scanned_as_dictionaries,
)
from pitlake.read.sql_guard import refusal, single_select
from pitlake.read.sql_limits import Limits, limited_rows, limits, under_limits
from pitlake.read.superseded import reader_scan
from pitlake.statuses import DateStatus, ResultStatus

if TYPE_CHECKING:
    from pitlake.read.cutoff import Ask
    from pitlake.read.lake import Lake


def answer(
    lake: Lake,
    query: str,
    as_of: Any = None,
    as_ingested: Any = None,
    *,
    timeout: float | None = None,
    max_rows: int | None = None,
    cancel: threading.Event | None = None,
    max_bytes: int | None = None,
) -> Result:
    """`Lake.sql`: run one statement over the views at the cutoff; the rows come back as the
    Result's Arrow table with the envelope (as_of, pinned). A bad statement, or one reaching
    for a file, is INVALID_ARGUMENTS with DuckDB's message; so is one past its timeout or row
    or byte cap (sql_limits.py), naming the limit and how to raise it."""
    from pitlake.errors import InvalidArgumentsError

    if not isinstance(query, str) or not query.strip():
        return Result.invalid("give one SQL statement, e.g. SELECT * FROM quotes LIMIT 5")
    refused = refusal(query)
    if refused is not None:
        return Result.invalid(refused)
    try:
        ask = lake.ask(as_of, as_ingested)
    except (InvalidArgumentsError, TypeError) as e:
        return Result.invalid(str(e))
    needed = referenced(query)
    lim = limits(timeout, max_rows, cancel, max_bytes)
    outcome = under_limits(lambda: _statement(lake, ask, query, needed, lim))
    if isinstance(outcome, Result):
        return outcome
    table = outcome
    repeated = duplicate_names(table.schema)
    if repeated is not None:
        return Result.invalid(repeated)
    meta: dict[str, Any] = {"rows": table.num_rows, "pinned": ask.pinned}
    if ask.as_ingested is not None:
        meta["as_ingested"] = as_ingested
    return Result(
        status=ResultStatus.OK if table.num_rows else ResultStatus.NO_DATA,
        date_status=DateStatus.NOT_APPLICABLE,
        as_of=ask.as_of,
        message=" ".join(ask.notes),
        meta=meta,
        table=table,
    )


def _statement(
    lake: Lake, ask: Ask, query: str, needed: set[str] | None, lim: Limits
) -> pa.Table | Result:
    """The statement's rows, or INVALID_ARGUMENTS with DuckDB's message; a name built at run
    time (query_table('quo'||…)) is retried with every relation."""
    try:
        return _run(lake, ask.cutoff, ask.as_ingested, query, needed, lim)
    except duckdb.CatalogException as e:
        if needed is None:
            return Result.invalid(f"SQL error: {e}")
        try:
            return _run(lake, ask.cutoff, ask.as_ingested, query, None, lim)
        except duckdb.Error as e2:
            return _invalid(e2)
    except duckdb.Error as e:
        return _invalid(e)


def _invalid(e: duckdb.Error) -> Result:
    if isinstance(e, duckdb.PermissionException):
        return Result.invalid(
            f"{e}. Point-in-time SQL reads only its views ({', '.join(RELATIONS)}); the "
            "lake's files are not reachable from it."
        )
    return Result.invalid(f"SQL error: {e}")


def _run(
    lake: Lake,
    cutoff: datetime,
    as_ingested: datetime | None,
    query: str,
    only: set[str] | None,
    lim: Limits,
) -> pa.Table:
    """The statement's rows over a connection holding the relations in `only` (all if None):
    a cursor on the Lake's shared database for a single SELECT naming its relations
    (sql_shared.py), a database of its own for anything else."""
    wants_factors = only is None or bool(only & set(ADJUSTED_VIEWS))
    coverage = _coverage(lake, cutoff) if wants_factors else None
    if only is not None and single_select(query):  # always, past `answer`'s check
        con = lake.sql_database.cursor()
        try:
            populate(
                con,
                lake.store,
                cutoff,
                as_ingested,
                factor_coverage=coverage,
                only=only,
                superseded_scan=partial(reader_scan, lake.reader),
                session_rows=partial(kept_session, lake),
                dictionary=scanned_as_dictionaries(query),
            )
            return limited_rows(con, query, lim)
        finally:
            con.close()
    con = connect(lake.store, cutoff, as_ingested, factor_coverage=coverage, only=only)
    try:
        return limited_rows(con, query, lim)
    finally:
        con.close()
