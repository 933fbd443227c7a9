"""The derived relations of point-in-time SQL (sql.py): the qfq/hfq views of the bars and the
calendar of XSHG days. They read the connection's `_versions` relations, so they hold no more
than those do."""

from __future__ import annotations

import functools
from datetime import date, datetime, timedelta

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from pitlake.calendar import FIRST_SESSION, XSHG, beijing
from pitlake.calendar_notices import as_known
from pitlake.read.adjust import FACTORS, PRICE_COLUMNS
from pitlake.read.engine import ident
from pitlake.read.readers.calendar import EXCHANGE, OFFLINE_SOURCE
from pitlake.schemas import SCHEMAS
from pitlake.units import ADJUSTED_PRICE_DECIMALS

# The adjusted views: of the dataset whose query takes `adjust` (the bars), one per mode.
[PRICES] = (s for s in SCHEMAS.values() if s.query is not None and "adjust" in s.query.model_fields)
ADJUSTED_VIEWS = {f"{PRICES.name}_{mode}": mode for mode in ("qfq", "hfq")}


def adjusted_views(
    con: duckdb.DuckDBPyConnection, factor_coverage: date | None, wanted: set[str]
) -> None:
    """qfq/hfq quotes from the factors known at the cutoff: per symbol, the vendor of its
    latest factor and only that vendor's series (bases differ between vendors); a row takes
    the last factor on or before its date; qfq divides by the latest factor (the anchor). Rows
    before the first factor or after the covered dates are left out, never served raw."""
    through = f"DATE '{factor_coverage.isoformat()}'" if factor_coverage else "NULL::DATE"
    # The factor series and its anchor are CTEs of each view, not relations of their own: the
    # connection's namespace (SHOW TABLES) holds only the public views.
    anchored = f"""
        f AS (SELECT symbol, trade_date, adj_factor, source, known_at, ingested_at
              FROM {FACTORS.name}_versions),
        last_day AS (SELECT symbol, max(trade_date) AS d FROM f GROUP BY symbol),
        vendor AS (
            SELECT f.symbol, arg_max(f.source, f.known_at) AS source
            FROM f JOIN last_day l ON f.symbol = l.symbol AND f.trade_date = l.d
            GROUP BY f.symbol
        ),
        factors AS (
            SELECT f.symbol, f.trade_date, arg_max(f.adj_factor, f.known_at) AS adj_factor
            FROM f JOIN vendor v ON f.symbol = v.symbol AND f.source = v.source
            GROUP BY f.symbol, f.trade_date
        ),
        anchored AS (  -- one evaluation of the series serves the join and the anchor
            SELECT symbol, trade_date, adj_factor,
                   arg_max(adj_factor, trade_date) OVER (PARTITION BY symbol) AS anchor,
                   greatest(max(trade_date) OVER (PARTITION BY symbol),
                            coalesce({through}, DATE '1900-01-01')) AS covered
            FROM factors
        )"""
    schema = PRICES
    for view, mode in ADJUSTED_VIEWS.items():
        if view not in wanted:
            continue
        scale = "a.adj_factor / a.anchor" if mode == "qfq" else "a.adj_factor"
        replaced = ", ".join(
            f"round(q.{c} * ({scale}), {ADJUSTED_PRICE_DECIMALS}) AS {c}" for c in PRICE_COLUMNS
        )
        con.execute(
            f"""
            CREATE TEMP VIEW {view} AS
            WITH {anchored}
            SELECT q.* REPLACE ({replaced}), a.adj_factor
            FROM {ident(PRICES.name)} q
            ASOF JOIN anchored a ON q.symbol = a.symbol AND q.trade_date >= a.trade_date
            WHERE q.trade_date <= a.covered
            """
        )
    assert set(PRICE_COLUMNS) <= set(schema.columns)


def calendar_days(stored: ds.Dataset | pa.Table, cutoff: datetime) -> pa.Table:
    """XSHG days with is_open, as `Lake.calendar` answers them: the offline calendar through
    its last day as known at `cutoff` (days not yet announced then are left out), then the
    `stored` vendor calendar rows (those known at the cutoff) for the days it leaves out."""
    offline_last = XSHG.offline_last
    out = _as_known(_offline_days(offline_last), beijing(cutoff))
    if isinstance(stored, ds.Dataset):
        beyond = stored.to_table(
            columns=["exchange", "date", "is_open", "source", "known_at"],
            filter=(pc.field("exchange") == EXCHANGE)
            & ~pc.field("date").isin(out["date"].combine_chunks()),
        )
        if beyond.num_rows:
            beyond = beyond.sort_by([("date", "ascending"), ("known_at", "descending")])
            first = pc.not_equal(beyond["date"].slice(1), beyond["date"].slice(0, -1))
            keep = pa.concat_arrays([pa.array([True]), first.combine_chunks()])
            beyond = beyond.filter(keep).select(["date", "is_open", "source"])
            out = pa.concat_tables([out, beyond.cast(out.schema)]).sort_by("date")
    return out


def _as_known(days: pa.Table, cutoff: datetime) -> pa.Table:
    """The offline days as known at `cutoff`: the days after its day re-judged one by one (a
    handful of years at most), the unknown ones dropped."""
    after = pc.greater(days["date"], pa.scalar(cutoff.date(), pa.date32()))
    n_past = len(days) - pc.sum(after).as_py() if len(days) else 0
    if n_past == len(days):
        return days
    later = days.slice(n_past)
    known = [
        as_known(d, o, cutoff)
        for d, o in zip(later["date"].to_pylist(), later["is_open"].to_pylist(), strict=True)
    ]
    keep = [k is not None for k in known]
    later = later.set_column(1, "is_open", pa.array([bool(k) for k in known], pa.bool_()))
    return pa.concat_tables([days.slice(0, n_past), later.filter(pa.array(keep))])


@functools.lru_cache(maxsize=2)
def _offline_days(offline_last: date) -> pa.Table:
    """Every day FIRST_SESSION…offline_last with is_open from the offline exchange calendar
    (13k rows), built once per process instead of at every connection."""
    sessions = set(XSHG.sessions_between(FIRST_SESSION, offline_last))
    n = (offline_last - FIRST_SESSION).days + 1
    days = [FIRST_SESSION + timedelta(days=i) for i in range(n)]
    return pa.table(
        {
            "date": pa.array(days, pa.date32()),
            "is_open": pa.array([d in sessions for d in days], pa.bool_()),
            "source": pa.array([OFFLINE_SOURCE] * n, pa.string()),
        }
    )
