"""`ret_1d`'s factor keys per chunk: for every symbol with factors and every session of the
chunk, the factor dates `queries.return_sql` joins (decision 51's rule): `kt` the latest
key known by the session's cutoff, `t0` the lesser of the latest key dated on or before the
session and kt, `t1` the same for the previous session. Found by binary searches over the
chunk's factor keys (asof.latest) instead of three ASOF JOINs of every row, which were
more than half of the return query's CPU (500 symbols × 5 years: 1.3 of 2.3 s, measured).

The factor versions of the chunk are a temp table (`ret_fv`, `queries.return_factors`)
read twice: once here for their keys, once by the chunk's statement for their values."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pitlake.read.panel import asof

FACTORS = "ret_fv"  # the chunk's factor versions (temp table)
KEYS = "ret_keys"  # (symbol, session, kt, t0, t1), registered


NONE = np.iinfo(np.int64).min  # a null date or key


def _days(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Dates as int64 days since the epoch, NONE for null."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    days = values.cast(pa.int32()).cast(pa.int64()).fill_null(NONE)
    return days.to_numpy(zero_copy_only=False)


def _lesser(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """SQL's least() of two date columns: null (NONE) only where both are."""
    return np.where(a == NONE, b, np.where(b == NONE, a, np.minimum(a, b)))


def keys(factor_keys: pa.Table, sessions: pa.Table) -> pa.Table:
    """(symbol, session, kt, t0, t1) per symbol of `factor_keys` (symbol, t, first_known:
    one row per factor date) and session of `sessions` (session, cutoff, prev). Of keys
    first known at the same instant, kt is the latest dated."""
    names = pc.unique(factor_keys.column("symbol"))
    code = pc.index_in(factor_keys.column("symbol"), value_set=names).to_numpy().astype(np.int64)
    t = _days(factor_keys.column("t"))
    known = asof.micros(factor_keys.column("first_known"))
    by_date = np.lexsort((t, code))  # ties of first_known resolve to the latest date
    code, t, known = code[by_date], t[by_date], known[by_date]
    n_sessions = sessions.num_rows
    row_code = np.repeat(np.arange(len(names), dtype=np.int64), n_sessions)
    at = np.tile(np.arange(n_sessions, dtype=np.int64), len(names))

    def key(by: np.ndarray, values: np.ndarray) -> np.ndarray:
        """The date of the latest key by `by` at or before each row's session's value."""
        found = asof.latest(code, by, row_code, at, values)
        return np.where(found >= 0, t[np.maximum(found, 0)], NONE)

    kt = key(known, asof.micros(sessions.column("cutoff")))
    on = key(t, _days(sessions.column("session")))
    before = key(t, _days(sessions.column("prev")))  # no previous session: none

    def dates(values: np.ndarray) -> pa.Array:
        none = values == NONE
        days = np.where(none, 0, values).astype(np.int32)
        return pa.array(days, pa.int32(), mask=none).cast(pa.date32())

    return pa.table(
        {
            "symbol": names.take(pa.array(row_code)),
            "session": sessions.column("session").take(pa.array(at)),
            "kt": dates(kt),
            "t0": dates(_lesser(on, kt)),
            "t1": dates(_lesser(before, kt)),
        }
    )


def prepare(con: duckdb.DuckDBPyConnection, factors_sql: str, sessions: pa.Table) -> None:
    """The chunk's factor versions as `ret_fv` and their keys per session as `ret_keys`."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {FACTORS} AS {factors_sql}")
    factor_keys = con.sql(
        f"SELECT symbol, trade_date AS t, min(known_at) AS first_known FROM {FACTORS} GROUP BY ALL"
    ).to_arrow_table()
    con.register(KEYS, keys(factor_keys, sessions))
