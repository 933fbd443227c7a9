"""The statements' cells of a panel chunk: per row (symbol, cutoff), the statement state
(`queries.statement_state`: one row per moment a symbol's knowledge changed, at `t`) that
held at the row's cutoff — the newest state with the row's symbol and `t <= cutoff`, the
ASOF JOIN's rule — found by one binary search per row over (symbol, t) keys instead of a
DuckDB ASOF JOIN of every row (a 50-symbol × 5-year panel: the join was ~30 ms of CPU for
60,600 rows; 5,000 symbols: ~2.5 s of a 5 s answer; measured in benchmarks/README.md).

Keys: each symbol a code (its position among the states' symbols), each instant its rank
among the states' `t` and the sessions' cutoffs together, so `t <= cutoff` is `rank(t) <=
rank(cutoff)` exactly, and (code, rank) packs into one int64 without overflow (codes ×
ranks ≤ ~10^5 × ~10^6)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def micros(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Timestamps as int64 microseconds since the epoch (UTC)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    return values.cast(pa.timestamp("us", tz="UTC")).cast(pa.int64()).to_numpy()


def latest(
    s_code: np.ndarray,
    s_value: np.ndarray,
    r_code: np.ndarray,
    at: np.ndarray,
    values: np.ndarray,
) -> np.ndarray:
    """Per row i, the index of the state with code `r_code[i]` and the greatest value at or
    before `values[at[i]]` (-1: none; a row's code -1: none). Among states with equal
    (code, value), the last in the given order. int64 codes and values."""
    if len(s_code) == 0:
        return np.full(len(r_code), -1, np.int64)
    times = np.unique(np.concatenate([s_value, values]))
    width = np.int64(len(times))
    s_key = s_code * width + np.searchsorted(times, s_value)
    order = np.argsort(s_key, kind="stable")
    s_key, codes = s_key[order], s_code[order]
    r_key = r_code * width + np.searchsorted(times, values)[at]
    found = np.searchsorted(s_key, r_key, side="right") - 1
    safe = np.where(found >= 0, found, 0)
    ok = (r_code >= 0) & (found >= 0) & (codes[safe] == r_code)
    return np.where(ok, order[safe], -1)


def positions(
    state: pa.Table,
    symbols: pa.Array | pa.ChunkedArray,
    session_of_row: np.ndarray,
    session_cutoffs: pa.Array,
) -> pa.Array:
    """Per row, the index of the state row that held at its cutoff, null where none did (no
    state of the symbol known by then). `session_of_row[i]`: row i's index into
    `session_cutoffs` (each session's cutoff, a timestamp)."""
    n = len(symbols)
    if state.num_rows == 0 or n == 0:
        return pa.nulls(n, pa.int64())
    names = pc.unique(state.column("symbol"))
    s_code = pc.index_in(state.column("symbol"), value_set=names).to_numpy().astype(np.int64)
    r_code = pc.index_in(symbols, value_set=names).fill_null(-1).to_numpy().astype(np.int64)
    at = latest(s_code, micros(state.column("t")), r_code, session_of_row, micros(session_cutoffs))
    return pa.array(at, pa.int64(), mask=at < 0)


def session_index(days: pa.Array | pa.ChunkedArray, sessions: pa.Array) -> np.ndarray:
    """Per row, the index of its trade_date among `sessions` (sorted dates, every row's
    among them), by a day-indexed table."""
    if isinstance(days, pa.ChunkedArray):
        days = days.combine_chunks()
    d = days.cast(pa.int32()).to_numpy(zero_copy_only=False)
    s = sessions.cast(pa.int32()).to_numpy(zero_copy_only=False)
    if len(s) == 0:
        return np.zeros(len(d), np.int64)
    dense = np.zeros(int(s[-1] - s[0]) + 1, np.int64)  # day → its session's index
    dense[s - s[0]] = np.arange(len(s))
    return dense[d - s[0]]
