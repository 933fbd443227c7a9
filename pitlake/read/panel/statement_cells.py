"""A panel's line items: each chunk's cells from the statements' states (`queries.
statement_states`, taken per row by asof.py), and the symbols without a statement public by
their first row's cutoff (for the status, truth.py); and the rows of a panel of given
symbols asking line items only, which need no query."""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pitlake.read.panel import asof, queries
from pitlake.read.panel.fields import Fields

if TYPE_CHECKING:
    from pitlake.read.panel.question import Question


def with_statements(
    q: Question, found: pa.Table, states: dict[str, pa.Table], sessions: pa.Table
) -> pa.Table:
    """The chunk's columns in the asked order, each line item taken from its statement's
    state that held at the row's cutoff (asof.py), and with `provenance` each statement's
    report period and known_at."""
    if not states:
        return found
    at = asof.session_index(found.column("trade_date"), sessions.column("session"))
    items = {li.name: li.statement for li in q.fields.items}
    kept = ["p", "c0_known_at"] if q.provenance else []
    taken = {  # only the columns the answer shows
        statement: state.select(
            [queries.CELL + n for n, s in items.items() if s == statement] + kept
        ).take(asof.positions(state, found.column("symbol"), at, sessions.column("cutoff")))
        for statement, state in states.items()
    }
    columns = {"trade_date": found.column("trade_date"), "symbol": found.column("symbol")}
    for name in q.fields.order:
        statement = items.get(name)
        columns[name] = (
            taken[statement].column(queries.CELL + name) if statement else found.column(name)
        )
    if q.provenance:
        for statement, t in taken.items():
            columns[f"{statement}_report_period"] = t.column("p")
            columns[f"{statement}_known_at"] = t.column("c0_known_at")
    return pa.table(columns)


def without_statements(
    con: duckdb.DuckDBPyConnection,
    q: Question,
    table: pa.Table,
    states: dict[str, pa.Table],
    sessions: pa.Table,
) -> dict[str, list[str]]:
    """Per statement asked, the symbols with a row and no version public by that row's
    cutoff (knowledge only grows, so: by the cutoff of the symbol's first row). `states`:
    each statement's states (a row per symbol and moment `t` its knowledge changed);
    `sessions`: the panel's (session, cutoff)."""
    out: dict[str, list[str]] = {}
    if not table.num_rows or not q.fields.items:
        return out
    if not isinstance(q.universe, str):  # given symbols: each has a row on the first session
        first = sessions.column("cutoff")[0]
        for statement, state in states.items():
            t = state.column("t")
            by_first = state.filter(pc.less_equal(t, first.cast(t.type)))
            public = set(pc.unique(by_first.column("symbol")).to_pylist())
            out[statement] = sorted(s for s in q.universe if s not in public)
        return out
    for statement, state in states.items():
        con.register(f"s_{statement}", state)
    con.register("panel_answer", table.select(["trade_date", "symbol"]))
    con.register("panel_sessions", sessions)
    for statement in q.fields.statements():
        found = con.sql(
            f"""SELECT a.symbol FROM (
                  SELECT symbol, min(trade_date) AS d FROM panel_answer GROUP BY symbol) a
                JOIN panel_sessions s ON s.session = a.d
                LEFT JOIN (SELECT symbol, min(t) AS t FROM s_{statement} GROUP BY symbol) k
                  ON k.symbol = a.symbol
                WHERE k.t IS NULL OR k.t > s.cutoff ORDER BY a.symbol"""
        ).fetchall()
        out[statement] = [r[0] for r in found]
    return out


def items_only(fields: Fields) -> bool:
    """No field but line items (their cells come from the statements' states)."""
    sql_fields = (fields.bars, fields.valuation, fields.states, fields.flags, fields.returns)
    return not any(sql_fields) and not fields.limit


def given_rows(symbols: list[str], sessions: pa.Table) -> pa.Table:
    """Every session × given symbol, by session then symbol: the row query's answer when it
    selects nothing else, without its sort (13 ms of a 60 ms 50-symbol panel, measured).
    Code-point order is DuckDB's byte order of UTF-8 text."""
    names = pa.array(sorted(symbols), pa.string())
    days = sessions.column("session")
    return pa.table(
        {
            "trade_date": days.take(pa.array(np.repeat(np.arange(len(days)), len(names)))),
            "symbol": names.take(pa.array(np.tile(np.arange(len(names)), len(days)))),
        }
    )
