"""The panel's statement cells take, per row, the state that held at the row's cutoff by a
binary search (`pitlake/read/panel/asof.py`) instead of an ASOF JOIN: for any states and
rows — a cutoff equal to a state's `t`, before a symbol's first state, a symbol without
states, states in any order — it finds the very row DuckDB's ASOF JOIN finds."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import duckdb
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pitlake.read.panel import asof

T0 = datetime(2024, 1, 1, 7, tzinfo=timezone.utc)
SYMBOLS = ["000001.SZ", "000002.SZ", "600000.SH", "830001.BJ"]  # the last: no states
INSTANTS = [T0 + timedelta(hours=12 * i) for i in range(8)]  # cutoffs and `t`s share some
DAYS = [date(2024, 1, 1) + timedelta(days=i) for i in range(4)]

states_st = st.lists(
    st.tuples(st.sampled_from(SYMBOLS[:3]), st.sampled_from(INSTANTS)),
    unique=True,  # one state per (symbol, t), as queries.statement_states makes them
    max_size=12,
)
rows_st = st.lists(st.tuples(st.sampled_from(SYMBOLS), st.integers(0, 3)), max_size=20)
cutoffs_st = st.lists(st.sampled_from(INSTANTS), min_size=4, max_size=4).map(sorted)


def _by_asof_join(state: pa.Table, rows: pa.Table) -> list[int | None]:
    con = duckdb.connect()
    con.execute("SET asof_loop_join_threshold = 0")  # the join itself, never a loop
    con.register("st", state.append_column("i", pa.array(range(state.num_rows), pa.int64())))
    con.register("r", rows.append_column("n", pa.array(range(rows.num_rows), pa.int64())))
    found = con.sql(
        "SELECT st.i FROM r ASOF LEFT JOIN st ON st.symbol = r.symbol AND st.t <= r.cutoff "
        "ORDER BY r.n"
    ).fetchall()
    return [i for (i,) in found]


@settings(max_examples=200, deadline=None)
@given(states=states_st, rows=rows_st, cutoffs=cutoffs_st)
def test_each_row_takes_the_state_the_asof_join_takes(
    states: list[tuple[str, datetime]], rows: list[tuple[str, int]], cutoffs: list[datetime]
) -> None:
    ts = pa.timestamp("us", tz="UTC")
    state = pa.table(
        {
            "symbol": pa.array([s for s, _ in states], pa.string()),
            "t": pa.array([t for _, t in states], ts),
        }
    )
    session_cutoffs = pa.array(cutoffs, ts)
    at = asof.session_index(
        pa.array([DAYS[i] for _, i in rows], pa.date32()), pa.array(DAYS, pa.date32())
    )
    assert at.tolist() == [i for _, i in rows]
    got = asof.positions(state, pa.array([s for s, _ in rows], pa.string()), at, session_cutoffs)
    expected = _by_asof_join(
        state,
        pa.table(
            {
                "symbol": pa.array([s for s, _ in rows], pa.string()),
                "cutoff": pa.array([cutoffs[i] for _, i in rows], ts),
            }
        ),
    )
    assert got.to_pylist() == expected
