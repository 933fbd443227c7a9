"""The panel's binary searches in place of ASOF JOINs (decision 56): a statement cell takes
the state that held at the row's cutoff (`panel/asof.py`) — for any states and rows (a
cutoff equal to a state's `t`, before a symbol's first state, a symbol without states,
states in any order) the very row DuckDB's ASOF JOIN finds —, ret_1d's factor keys
(`panel/returns.py`) are the three ASOF JOINs' keys, and a panel of line items only builds
its rows without the row query, with the same answer."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pitlake.read.lake import Lake
from pitlake.read.panel import asof, returns, statement_cells
from tests.serve.api.lakebuild import SESSIONS, A, B, build_lake

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


factor_keys_st = st.lists(
    st.tuples(st.sampled_from(SYMBOLS[:3]), st.integers(0, 9), st.integers(0, 40)),
    unique_by=(lambda k: (k[0], k[1]), lambda k: (k[0], k[2])),  # one key a date, one an instant
    max_size=15,
)


@settings(max_examples=200, deadline=None)
@given(factor_keys=factor_keys_st, cutoffs=cutoffs_st, has_prev=st.booleans())
def test_return_keys_are_the_asof_joins_keys(
    factor_keys: list[tuple[str, int, int]], cutoffs: list[datetime], has_prev: bool
) -> None:
    """`returns.keys` (binary searches) finds the factor dates the three ASOF JOINs found:
    kt the key last first known by the cutoff, t0/t1 the lesser of the latest dated on or
    before the session (its previous one) and kt, SQL's least() skipping nulls."""
    ts = pa.timestamp("us", tz="UTC")
    base = date(2023, 12, 28)
    keys_table = pa.table(
        {
            "symbol": pa.array([s for s, _, _ in factor_keys], pa.string()),
            "t": pa.array([base + timedelta(days=d) for _, d, _ in factor_keys], pa.date32()),
            "first_known": pa.array([T0 + timedelta(hours=h) for _, _, h in factor_keys], ts),
        }
    )
    prev = [DAYS[0] - timedelta(days=1) if has_prev else None, *DAYS[:-1]]
    sessions = pa.table(
        {
            "session": pa.array(DAYS, pa.date32()),
            "cutoff": pa.array(cutoffs, ts),
            "prev": pa.array(prev, pa.date32()),
        }
    )
    got = returns.keys(keys_table, sessions)
    con = duckdb.connect()
    con.execute("SET asof_loop_join_threshold = 0")
    con.register("fk", keys_table)
    con.register("sessions", sessions)
    con.register("got", got)
    expected = con.sql(
        """WITH r AS (SELECT s.*, g.symbol FROM sessions s
                      CROSS JOIN (SELECT DISTINCT symbol FROM fk) g)
        SELECT r.symbol, r.session, k.t AS kt, least(a.t, k.t) AS t0, least(b.t, k.t) AS t1
        FROM r
        ASOF LEFT JOIN fk k ON k.symbol = r.symbol AND k.first_known <= r.cutoff
        ASOF LEFT JOIN fk a ON a.symbol = r.symbol AND a.t <= r.session
        ASOF LEFT JOIN fk b ON b.symbol = r.symbol AND b.t <= r.prev
        ORDER BY 1, 2"""
    ).fetchall()
    assert con.sql("SELECT * FROM got ORDER BY 1, 2").fetchall() == expected


def test_of_keys_first_known_together_the_latest_dated_is_known() -> None:
    """A backfill can make several factor dates public at one instant: the key known by a
    cutoff after it is the latest of them (an ASOF JOIN on first_known picked any)."""
    ts = pa.timestamp("us", tz="UTC")
    keys_table = pa.table(
        {
            "symbol": ["000001.SZ"] * 3,
            "t": pa.array([date(2024, 1, 2), date(2023, 12, 1), date(2023, 12, 15)]),
            "first_known": pa.array([T0 + timedelta(days=1)] * 3, ts),
        }
    )
    sessions = pa.table(
        {
            "session": pa.array([date(2024, 1, 3)], pa.date32()),
            "cutoff": pa.array([T0 + timedelta(days=2)], ts),
            "prev": pa.array([date(2024, 1, 2)], pa.date32()),
        }
    )
    got = returns.keys(keys_table, sessions).to_pylist()
    assert got == [
        {
            "symbol": "000001.SZ",
            "session": date(2024, 1, 3),
            "kt": date(2024, 1, 2),
            "t0": date(2024, 1, 2),
            "t1": date(2024, 1, 2),
        }
    ]


@settings(max_examples=50, deadline=None)
@given(symbols=st.lists(st.sampled_from([*SYMBOLS, "688981.SH", "920001.BJ"]), unique=True))
def test_given_rows_are_the_row_querys_rows(symbols: list[str]) -> None:
    """A panel of given symbols asking line items only builds its rows without a query:
    the same rows, in the same order, as the row query's CROSS JOIN … ORDER BY."""
    sessions = pa.table({"session": pa.array(DAYS, pa.date32())})
    con = duckdb.connect()
    con.register("sessions", sessions)
    con.register("asked", pa.table({"symbol": pa.array(symbols, pa.string())}))
    expected = con.sql(
        "SELECT s.session AS trade_date, a.symbol FROM sessions s CROSS JOIN asked a "
        "ORDER BY s.session, a.symbol"
    ).to_arrow_table()
    assert statement_cells.given_rows(symbols, sessions).equals(expected)


def test_an_items_only_panel_answers_as_one_with_a_bar(tmp_path: Path) -> None:
    """The items-only path (no row query) and the row query's path give the same cells."""
    lake = Lake(build_lake(tmp_path))
    items = ["revenue", "revenue_ttm", "net_profit_q"]
    alone = lake.panel(items, SESSIONS[0], SESSIONS[-1], universe=[B, A], provenance=True)
    with_bar = lake.panel(
        [*items, "close"], SESSIONS[0], SESSIONS[-1], universe=[B, A], provenance=True
    )
    assert alone.table.num_rows == 2 * len(SESSIONS)
    assert alone.table.equals(with_bar.table.drop_columns(["close"]))
