"""The scans of the read path: every SQL statement a reader runs over the lake's Parquet files
(`pitlake.read.engine` runs them), each returning Arrow.

They take the `Lake` for its store (which files), its DuckDB reader and its kept session
rows; visibility is always `engine.visible` (known_at ≤ cutoff, optionally ingested_at ≤
as_ingested)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from pitlake.lake.catalog import WHOLE_MARKET
from pitlake.read.cutoff import Ask
from pitlake.read.engine import Params, col, hidden, last_per_key, visible, visible_mask
from pitlake.schemas import Dataset

if TYPE_CHECKING:
    import pandas as pd

    from pitlake.read.lake import Lake

# Reads bounded by symbols × calendar days up to this pick the newest version per key by a
# sorted scan (see read_latest_small); larger ones group in DuckDB.
SMALL_READ_CELLS = 20_000
# Reads of at most this many symbols in one year file touch a row group or two: one DuckDB
# thread (a second one cost ~1.3 ms of a 13 ms read, and under load serves another request).
# Over more files the second thread reads another file: one symbol's 5 years, 34 → 23 ms.
POINT_READ_SYMBOLS = 4
# Whole-market reads of at most this many calendar days are served from the kept days
# (session_slices.py): a session's cross-section, the market's ladder window.
KEPT_WINDOW_DAYS = 45

HiddenPairs = set[tuple[str, date]]


def years(lo: date, hi: date) -> list[str]:
    return [str(y) for y in range(lo.year, hi.year + 1)]


def months(lo: date, hi: date) -> list[str]:
    out, y, m = [], lo.year, lo.month
    while (y, m) <= (hi.year, hi.month):
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def empty_table(schema: Dataset) -> pa.Table:
    return schema.arrow_schema.empty_table()


def newest_per_key(schema: Dataset, table: pa.Table) -> pa.Table:
    """Rows sorted by key then version: the last version of each key."""
    if table.num_rows == 0:
        return empty_table(schema)
    return last_per_key(table, schema.key)


def _pairs(rows: pa.Table, date_col: str) -> HiddenPairs:
    return set(
        zip(rows.column("symbol").to_pylist(), rows.column(date_col).to_pylist(), strict=True)
    )


def read_latest(
    lake: Lake, schema: Dataset, symbols: list[str] | None, lo: date, hi: date, ask: Ask
) -> tuple[pa.Table, HiddenPairs | None]:
    """The newest visible version per key, and (for a symbol-bounded read) the (symbol,
    date) pairs whose stored rows the cutoff hides, from the same scan; None: not known
    (ask `hidden_pairs`). Columns come typed as the spec types them now."""
    table, hidden_pairs = _read_latest(lake, schema, symbols, lo, hi, ask)
    return as_spec_types(table, schema), hidden_pairs


def as_spec_types(table: pa.Table, schema: Dataset) -> pa.Table:
    """Stored columns in the spec's current types: a file written before a field's type
    changed (limit_pools counts were float64) reads as the spec says (an integer count)."""
    spec = schema.arrow_schema
    fields = [
        (i, spec.field(f.name))
        for i, f in enumerate(table.schema)
        if f.name in spec.names
        and spec.field(f.name).type != f.type
        and pa.types.is_integer(spec.field(f.name).type)
    ]
    for i, f in fields:
        table = table.set_column(i, f.name, table.column(i).cast(f.type))
    return table


def _read_latest(
    lake: Lake, schema: Dataset, symbols: list[str] | None, lo: date, hi: date, ask: Ask
) -> tuple[pa.Table, HiddenPairs | None]:
    date_col = schema.date_column
    assert date_col is not None
    p = Params()
    where = [f"{col(date_col)} BETWEEN {p.add(lo)} AND {p.add(hi)}"]
    if symbols:
        where.append(f"{col('symbol')} IN {p.in_list(symbols)}")
    files = lake.store.files(schema.name, years(lo, hi))
    if not symbols and files and (hi - lo).days < KEPT_WINDOW_DAYS:
        kept = window_slices(lake, schema, files, lo, hi)
        if kept is not None:
            return read_latest_kept(schema, kept, None, ask)
    if symbols and len(symbols) * ((hi - lo).days + 1) <= SMALL_READ_CELLS and files:
        seen = " AND ".join(visible(p, ask.cutoff, ask.as_ingested))
        point = point_read(symbols, files)
        kept = None if point or lo != hi else session_slice(lake, schema, files, lo)
        if kept is not None:
            return read_latest_kept(schema, kept, symbols, ask)
        return read_latest_small(lake, schema, files, where, seen, p, point=point)
    where += visible(p, ask.cutoff, ask.as_ingested)
    table = lake.reader.latest_versions(schema, files, where, p)
    if table is None or table.num_rows == 0:
        return empty_table(schema), (set() if not files else None)
    return table, None


def point_read(symbols: list[str] | None, files: list[Any]) -> bool:
    """A read for the one-thread database: a few symbols in one file."""
    return symbols is not None and 0 < len(symbols) <= POINT_READ_SYMBOLS and len(files) <= 1


def read_latest_small(
    lake: Lake,
    schema: Dataset,
    files: list[Any],
    where: list[str],
    seen: str,
    p: Params,
    *,
    point: bool,
) -> tuple[pa.Table, HiddenPairs]:
    """The same rows as `DuckReader.latest_versions` for a read bounded by symbols × days
    (one symbol's year, say): a plain filtered scan in key order, and the newest version
    per key kept by comparing neighbours, which skips the GROUP BY over row structs and
    the pandas round trip (together about a third of a one-year read). Ties on known_at
    go to the later ingestion. The scan also returns the rows `seen` (the visibility
    condition) rejects, as the (symbol, date) pairs they hide: no second query for them."""
    date_col = schema.date_column
    assert date_col is not None
    order = ", ".join(col(c) for c in [*schema.key, "known_at", "ingested_at"])
    sql = (
        f"SELECT *, ({seen}) AS __visible FROM {lake.reader.source(files, p)} "
        f"WHERE {' AND '.join(where)} ORDER BY {order}"
    )
    scanned = lake.reader.table(sql, p, point=point)
    shown = scanned.column("__visible")
    hidden_pairs = _pairs(scanned.filter(pc.invert(shown)), date_col)
    table = scanned.filter(shown).drop_columns(["__visible"])
    return newest_per_key(schema, table), hidden_pairs


def read_latest_kept(
    schema: Dataset, kept: pa.Table, symbols: list[str] | None, ask: Ask
) -> tuple[pa.Table, HiddenPairs]:
    """`read_latest_small` over kept rows (`session_slice`, `window_slices`), in Arrow: the
    symbols asked (None: the whole market, whose hidden pairs are scoped WHOLE_MARKET, as
    `hidden_pairs` scopes them), split by the same visibility rule as `visible()`
    (known_at <= cutoff, and ingested_at <= as_ingested when given; a NULL instant is
    neither shown nor hidden, as in SQL), sorted by key then version, the newest version
    per key kept. A statement over the registered table cost ~20 ms of planning for a few
    rows."""
    date_col = schema.date_column
    assert date_col is not None
    asked = (
        kept
        if symbols is None
        else kept.filter(pc.is_in(kept.column("symbol"), value_set=pa.array(symbols)))
    )

    shown = visible_mask(asked, ask.cutoff, ask.as_ingested)
    not_shown = asked.filter(pc.invert(shown))
    if symbols is None:
        days = pc.unique(not_shown.column(date_col)).to_pylist()
        hidden_pairs = {(WHOLE_MARKET, d) for d in days}
    else:
        hidden_pairs = _pairs(not_shown, date_col)
    table = asked.filter(shown)
    if table.num_rows > 1 and date_col not in schema.key:
        # kept days are each sorted by key then version (kept_order), so a key's versions
        # are neighbours already when the date is part of the key; otherwise sort them
        order = [*schema.key, "known_at", "ingested_at"]
        table = table.sort_by([(c, "ascending") for c in dict.fromkeys(order)])
    return newest_per_key(schema, table), hidden_pairs


def kept_order(schema: Dataset) -> str:
    """The order kept days are stored in: by day, then key, then version (oldest first)."""
    date_col = schema.date_column
    assert date_col is not None
    return ", ".join(
        col(c) for c in dict.fromkeys([date_col, *schema.key, "known_at", "ingested_at"])
    )


def window_slices(
    lake: Lake, schema: Dataset, files: list[Any], lo: date, hi: date
) -> pa.Table | None:
    """Every stored version of the days lo..hi in these files (no cutoff applied), kept
    per day and file identity, the missing days read by one scan; None for files without
    a local identity."""
    date_col = schema.date_column
    assert date_col is not None
    days = [lo + timedelta(days=i) for i in range((hi - lo).days + 1)]

    def read(missing: list[date]) -> pa.Table:
        p = Params()
        between = f"{col(date_col)} BETWEEN {p.add(min(missing))} AND {p.add(max(missing))}"
        sql = f"SELECT * FROM {lake.reader.source(files, p)} WHERE {between} ORDER BY {kept_order(schema)}"
        return lake.reader.table(sql, p)

    found = lake.sessions.get_days(schema.name, days, files, read, date_col)
    if found is None:
        return None
    parts = [found[d] for d in days if found[d].num_rows]
    if not parts:
        return empty_table(schema)
    return pa.concat_tables(parts, promote_options="default") if len(parts) > 1 else parts[0]


def session_slice(lake: Lake, schema: Dataset, files: list[Any], day: date) -> pa.Table | None:
    """Every stored version of `day` in these files (no cutoff applied), kept per file
    identity (session_slices.py); None for files without a local identity."""
    date_col = schema.date_column
    assert date_col is not None

    def read() -> pa.Table:
        p = Params()
        sql = (
            f"SELECT * FROM {lake.reader.source(files, p)} WHERE {col(date_col)} = {p.add(day)} "
            f"ORDER BY {kept_order(schema)}"
        )
        return lake.reader.table(sql, p)

    return lake.sessions.get(schema.name, day, files, read)


def hidden_pairs(
    lake: Lake, schema: Dataset, symbols: list[str] | None, lo: date, hi: date, ask: Ask
) -> HiddenPairs:
    """(scope, date) pairs with stored rows that the cutoff hides: "not public yet"."""
    date_col = schema.date_column
    assert date_col is not None
    files = lake.store.files(schema.name, years(lo, hi))
    if not files:
        return set()
    p = Params()
    where = [f"{col(date_col)} BETWEEN {p.add(lo)} AND {p.add(hi)}"]
    if symbols:
        where.append(f"{col('symbol')} IN {p.in_list(symbols)}")
    where.append(hidden(p, ask.cutoff, ask.as_ingested))
    scope = col("symbol") if symbols else p.add(WHOLE_MARKET)
    sql = (
        f"SELECT DISTINCT {scope} AS scope, {col(date_col)} AS d "
        f"FROM {lake.reader.source(files, p)} WHERE {' AND '.join(where)}"
    )
    point = point_read(symbols, files)  # the one-thread database, as for the read
    found = lake.reader.table(sql, p, point=point)
    return set(zip(found.column("scope").to_pylist(), found.column("d").to_pylist(), strict=True))


def latest_date(
    lake: Lake, schema: Dataset, symbols: list[str] | None, on_or_before: date, ask: Ask
) -> date | None:
    """The latest date ≤ on_or_before holding rows visible at the cutoff (newest year
    partition first, so the usual answer reads one file)."""
    date_col = schema.date_column
    assert date_col is not None
    parts = [
        part
        for part in lake.store.list_partitions(schema.name)
        if part.value.isdigit() and int(part.value) <= on_or_before.year
    ]
    for part in sorted(parts, key=lambda x: int(x.value), reverse=True):
        p = Params()
        where = [f"{col(date_col)} <= {p.add(on_or_before)}"]
        where += visible(p, ask.cutoff, ask.as_ingested)
        if symbols:
            where.append(f"{col('symbol')} IN {p.in_list(symbols)}")
        sql = (
            f"SELECT max({col(date_col)}) FROM {lake.reader.source([part.path], p)} "
            f"WHERE {' AND '.join(where)}"
        )
        found = lake.reader.rows(sql, p)[0][0]
        if found is not None:
            return found
    return None


def factor_series(lake: Lake, factors: Dataset, symbols: list[str], ask: Ask) -> pd.DataFrame:
    """Per symbol, one vendor's factors as known at the cutoff: the vendor of the latest
    factor, and only its rows (bases differ between vendors)."""
    import pandas as pd

    files = [
        p.path
        for p in lake.store.list_partitions(factors.name)
        if not p.value.isdigit() or int(p.value) <= ask.cutoff.year
    ]
    empty = pd.DataFrame(columns=["symbol", "trade_date", "adj_factor", "source"])
    if not files:
        return empty
    p = Params()
    where = [f"{col('symbol')} IN {p.in_list(symbols)}", *visible(p, ask.cutoff, ask.as_ingested)]
    sql = f"""
        WITH f AS (
            SELECT t.symbol, t.trade_date, t.adj_factor, t.source, t.known_at
            FROM {lake.reader.source(files, p)} WHERE {" AND ".join(where)}
        ),
        last_day AS (SELECT symbol, max(trade_date) AS d FROM f GROUP BY symbol),
        vendor AS (
            SELECT f.symbol, arg_max(f.source, f.known_at) AS source
            FROM f JOIN last_day l ON f.symbol = l.symbol AND f.trade_date = l.d
            GROUP BY f.symbol
        )
        SELECT f.symbol, f.trade_date, arg_max(f.adj_factor, f.known_at) AS adj_factor,
               any_value(f.source) AS source
        FROM f JOIN vendor v ON f.symbol = v.symbol AND f.source = v.source
        GROUP BY f.symbol, f.trade_date
        ORDER BY f.symbol, f.trade_date
    """
    out = lake.reader.table(sql, p).to_pandas()
    return out if len(out) else empty


def newest_periods(
    lake: Lake, files: list[Any], conditions: Callable[[Params], list[str]], group: list[str]
) -> list[date]:
    """The distinct greatest report_period per `group` among the rows visible under
    `conditions`."""
    p = Params()
    where = conditions(p)
    by = ", ".join(col(c) for c in group)
    sql = (
        f"SELECT DISTINCT newest FROM (SELECT max({col('report_period')}) AS newest "
        f"FROM {lake.reader.source(files, p)} WHERE {' AND '.join(where)} "
        f"GROUP BY {by}) ORDER BY newest"
    )
    return [row[0] for row in lake.reader.rows(sql, p)]
