"""Point-in-time SQL: a DuckDB connection whose views hold exactly what was public at a cutoff.

Per dataset (`quotes`, `adj_factors`, `valuation`, `financials`, `news`, `dragon_tiger`):
- `<dataset>_versions`: every stored version with `known_at <= T` (and `ingested_at <= the
  as-ingested instant`, if given), the bitemporal history as it could be seen at T;
- `<dataset>`: the newest of those versions per key (ties on known_at go to the later
  ingestion, as `Lake` reads do).
And `quotes_qfq` / `quotes_hfq` (prices adjusted with the factors known at T, qfq anchored at the
latest of them), and `calendar` (XSHG days: the offline exchange calendar where it reaches, the
stored vendor calendar known at T beyond it).

Why it cannot read the future: each `_versions` relation is a pyarrow dataset registered with the
visibility filter already applied, so even the relation itself holds no later row; and after the
views exist the connection runs with `enable_external_access = false` and a locked
configuration, so no `read_parquet`, `COPY`, `ATTACH` or extension can reach the raw files.
(DuckDB 2 re-binds a view at each query, so views over `read_parquet` stop working once file
access is off — measured; that is why the scans go through registered Arrow datasets.)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from pitlake.calendar import FIRST_SESSION, XSHG
from pitlake.envelope import Result
from pitlake.lake.store import LakeStore
from pitlake.read.adjust import FACTORS, PRICE_COLUMNS
from pitlake.read.engine import ident
from pitlake.read.readers.calendar import EXCHANGE, OFFLINE_SOURCE
from pitlake.read.superseded import anti_join, register_superseded
from pitlake.records import JSON_COLUMNS
from pitlake.schemas import SCHEMAS, Dataset, Kind, of_kind
from pitlake.statuses import DateStatus, ResultStatus

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

# Every registered dataset is a versioned view; the calendar is built from the stored sessions
# and the offline calendar instead (its own view below).
VERSIONED = tuple(name for name in SCHEMAS if SCHEMAS[name].kind is not Kind.CALENDAR)
[CALENDAR] = (SCHEMAS[name] for name in of_kind(Kind.CALENDAR))
# The adjusted views: of the dataset whose query takes `adjust` (the bars), one per mode.
[PRICES] = (s for s in SCHEMAS.values() if s.query is not None and "adjust" in s.query.model_fields)
ADJUSTED_VIEWS = {f"{PRICES.name}_{mode}": mode for mode in ("qfq", "hfq")}
_DUCKDB_TYPE = {pa.string(): "VARCHAR", pa.float64(): "DOUBLE"}


def _json_structure(arrow_type: pa.DataType) -> str:
    """DuckDB's `from_json` structure for a nested Arrow type (records.JSON_COLUMNS)."""
    if pa.types.is_list(arrow_type):
        return f"[{_json_structure(arrow_type.value_type)}]"
    if pa.types.is_struct(arrow_type):
        items = (f'"{f.name}": {_json_structure(f.type)}' for f in arrow_type)
        return "{" + ", ".join(items) + "}"
    return f'"{_DUCKDB_TYPE[arrow_type]}"'


# Read as Arrow dictionaries, not strings: a handful of distinct values per file, stored
# dictionary-encoded, so pyarrow hands DuckDB the codes instead of building a string per row
# (a session's cross-section: 410 → 280 ms CPU). Never a column statements filter on: pyarrow
# prunes no row group by a dictionary column (one symbol's history took 5× longer).
LINEAGE_STRINGS = ("source", "known_at_basis", "run_id")
# Every relation a connection can offer, and what each needs built first (the qfq/hfq views
# read the quotes view and the factor series; `_factors`/`_anchored` are their pieces).
RELATIONS = (
    *(f"{d}{s}" for d in VERSIONED for s in ("", "_versions")),
    *ADJUSTED_VIEWS,
    CALENDAR.name,
)
_NEEDS: dict[str, tuple[str, ...]] = {
    **{d: (f"{d}_versions",) for d in VERSIONED},
    **{
        v: (PRICES.name, f"{FACTORS.name}_versions", "_factors", "_anchored")
        for v in ADJUSTED_VIEWS
    },
    "_factors": (f"{FACTORS.name}_versions", "_anchored"),
    "_anchored": (f"{FACTORS.name}_versions", "_factors"),
}
# A statement naming none of the relations, or the catalog itself (SHOW TABLES,
# information_schema, duckdb_views(), ...), gets them all.
_CATALOG_WORDS = {"show", "information_schema", "sqlite_master", "pg_catalog", "pragma"}
_WORD = re.compile(r"[a-z_][a-z0-9_$]*")


def views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The relations a point-in-time connection offers, by name."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables ORDER BY table_name"
    ).fetchall()
    return [r[0] for r in rows if not r[0].startswith("_")]


def open_for(lake: Lake, as_of: Any = None, as_ingested: Any = None) -> duckdb.DuckDBPyConnection:
    """`Lake.duckdb`: the connection at the lake's cutoff for `as_of` (a pin clamps it, the
    future is "now"), raising InvalidArgumentsError on a bad instant."""
    ask = lake.ask(as_of, as_ingested)
    return connect(
        lake.store, ask.cutoff, ask.as_ingested, factor_coverage=_coverage(lake, ask.cutoff)
    )


def answer(lake: Lake, query: str, as_of: Any = None, as_ingested: Any = None) -> Result:
    """`Lake.sql`: run one statement over the views at the cutoff; the rows come back as the
    Result's Arrow table with the envelope (as_of, pinned). A bad statement, or one reaching
    for a file, is INVALID_ARGUMENTS with DuckDB's message."""
    from pitlake.errors import InvalidArgumentsError

    if not isinstance(query, str) or not query.strip():
        return Result.invalid("give one SQL statement, e.g. SELECT * FROM quotes LIMIT 5")
    try:
        ask = lake.ask(as_of, as_ingested)
    except (InvalidArgumentsError, TypeError) as e:
        return Result.invalid(str(e))
    needed = referenced(query)
    try:
        table = _run(lake, ask.cutoff, ask.as_ingested, query, needed)
    except duckdb.CatalogException as e:  # a name built at run time (query_table('quo'||…))
        if needed is None:
            return Result.invalid(f"SQL error: {e}")
        try:
            table = _run(lake, ask.cutoff, ask.as_ingested, query, None)
        except duckdb.Error as e2:
            return _invalid(e2)
    except duckdb.Error as e:
        return _invalid(e)
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


def _invalid(e: duckdb.Error) -> Result:
    if isinstance(e, duckdb.PermissionException):
        return Result.invalid(
            f"{e}. Point-in-time SQL reads only its views ({', '.join(RELATIONS)}); the "
            "lake's files are not reachable from it."
        )
    return Result.invalid(f"SQL error: {e}")


def _run(
    lake: Lake, cutoff: datetime, as_ingested: datetime | None, query: str, only: set[str] | None
) -> pa.Table:
    """The statement's rows over a connection holding the relations in `only` (all if None)."""
    wants_factors = only is None or bool(only & set(ADJUSTED_VIEWS))
    coverage = _coverage(lake, cutoff) if wants_factors else None
    con = connect(lake.store, cutoff, as_ingested, factor_coverage=coverage, only=only)
    try:
        rel = con.sql(query)
        return rel.to_arrow_table() if rel is not None else pa.table({})
    finally:
        con.close()


def referenced(query: str) -> set[str] | None:
    """The relations a statement names, with what they are built from; None (build them all)
    when it names none of them or reads the catalog. A lexical scan, over-inclusive on purpose
    (a name in a comment or a string counts): a miss is only a missing-table error, which
    `answer` retries with every relation. Building one view instead of all of them saves
    most of a small statement's time (each registration and view costs milliseconds)."""
    words = set(_WORD.findall(query.lower()))
    if words & _CATALOG_WORDS or any(w.startswith("duckdb_") for w in words):
        return None
    named = words & (set(RELATIONS) | {"_factors", "_anchored"})
    if not named:
        return None
    out: set[str] = set()
    todo = list(named)
    while todo:
        name = todo.pop()
        if name not in out:
            out.add(name)
            todo.extend(_NEEDS.get(name, ()))
    return out


def _coverage(lake: Lake, cutoff: datetime) -> date | None:
    """The last session the ledger records a successful factor fetch for, by the cutoff."""
    try:
        return lake.catalog.latest_ok_dates(cutoff.date()).get(FACTORS.name)
    except Exception:  # no readable catalog: adjusted rows stop at each symbol's last factor
        return None


def connect(
    store: LakeStore,
    cutoff: datetime,
    as_ingested: datetime | None = None,
    *,
    factor_coverage: date | None = None,
    threads: int | None = None,
    only: Iterable[str] | None = None,
) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection holding the point-in-time views at `cutoff` (aware), with file
    access off. `factor_coverage`: the last session the ledger says factors were fetched for
    (adjusted rows after a symbol's last factor are served up to it, as `Lake` does).
    `only`: build just these relations (closed over their needs, see `referenced`)."""
    wanted = (set(RELATIONS) | {"_factors", "_anchored"}) if only is None else set(only)
    con = duckdb.connect(config={"threads": threads} if threads else {})
    try:
        con.execute("SET TimeZone = 'Asia/Shanghai'")  # known_at::DATE is the Beijing day
        # Arrow-dataset scans carry no row estimates (~1 row), and below this threshold DuckDB
        # turns the qfq views' ASOF JOIN into a nested loop: minutes instead of seconds.
        con.execute("SET asof_loop_join_threshold = 0")
        for name in VERSIONED:
            schema = SCHEMAS[name]
            if f"{name}_versions" in wanted:
                data = _visible(store, schema, cutoff, as_ingested, dictionary=LINEAGE_STRINGS)
                con.register(f"{name}_versions", data)
            if name in wanted:
                # statements: drop the superseded rows (superseded.py); the other kinds'
                # questions are mostly one session or symbol, filtered below the window,
                # and their multi-version scan (6M quotes) would cost more than it saves
                superseded = (
                    register_superseded(con, schema, store.files(name), cutoff, as_ingested)
                    if schema.kind is Kind.REPORT_PERIOD
                    else None
                )
                con.execute(f"CREATE VIEW {ident(name)} AS {_latest_sql(schema, superseded)}")
        if "_factors" in wanted:
            _adjusted_views(con, factor_coverage, wanted)
        if CALENDAR.name in wanted:
            con.register("_calendar_days", _calendar_days(store, cutoff))
            con.execute(f"CREATE VIEW {ident(CALENDAR.name)} AS SELECT * FROM _calendar_days")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def _visible(
    store: LakeStore,
    schema: Dataset,
    cutoff: datetime,
    as_ingested: datetime | None,
    *,
    dictionary: Iterable[str] = (),
) -> ds.Dataset | pa.Table:
    """The dataset's stored rows public by the cutoff, as a lazily scanned Arrow dataset;
    the `dictionary` string columns are read as dictionaries (DuckDB serves them as VARCHAR)."""
    files = store.files(schema.name)
    if not files:
        return schema.arrow_schema.empty_table()
    condition = pc.field("known_at") <= pa.scalar(cutoff, pa.timestamp("us", tz="UTC"))
    if as_ingested is not None:
        ingested = pa.scalar(as_ingested, pa.timestamp("us", tz="UTC"))
        condition = condition & (pc.field("ingested_at") <= ingested)
    kw: dict[str, Any] = {}
    if store.remote:
        from pyarrow.fs import FSSpecHandler, PyFileSystem

        kw["filesystem"] = PyFileSystem(FSSpecHandler(store.fs.fs))  # type: ignore[attr-defined]
        paths = [f.key for f in files]
    else:
        paths = [str(f) for f in files]
    arrow_schema = schema.arrow_schema
    coded = [f.name for f in arrow_schema if f.name in set(dictionary) and f.type == pa.string()]
    fmt: Any = "parquet"
    if coded:
        fmt = ds.ParquetFileFormat(read_options=ds.ParquetReadOptions(dictionary_columns=coded))
        for name in coded:
            i = arrow_schema.get_field_index(name)
            f = arrow_schema.field(i)
            arrow_schema = arrow_schema.set(i, f.with_type(pa.dictionary(pa.int32(), pa.string())))
    data = ds.dataset(paths, schema=arrow_schema, format=fmt, **kw)
    return data.filter(condition)


def _select_columns(schema: Dataset, alias: str) -> str:
    out = []
    for f in schema.arrow_schema:
        c = f"{alias}.{ident(f.name)}"
        if f.name in JSON_COLUMNS:  # the nested form Result.to_arrow() gives, from one home
            nested = JSON_COLUMNS[f.name]
            c = (
                f"{c}::JSON AS {ident(f.name)}"
                if nested is None
                else f"from_json({c}, '{_json_structure(nested)}') AS {ident(f.name)}"
            )
        out.append(c)
    return ", ".join(out)


def _latest_sql(schema: Dataset, superseded: str | None = None) -> str:
    """The newest visible version per key: the same rows as `DuckReader.latest_versions`.
    `superseded` names a table of the visible rows a newer version supersedes ("": none):
    the view drops them by an anti-join instead of ranking every key (788k statements:
    ~1.0 s CPU against ~2.1-2.7 s for the window)."""
    cols, relation = _select_columns(schema, "v"), f"{schema.name}_versions"
    if superseded is not None:
        return f"SELECT {cols} FROM " + (
            anti_join(relation, "v", superseded, schema) if superseded else f"{relation} v"
        )
    keys = ", ".join(ident(k) for k in schema.key)
    return (
        f"SELECT {cols} FROM {relation} v QUALIFY row_number() OVER (PARTITION BY {keys} "
        "ORDER BY v.known_at DESC, v.ingested_at DESC) = 1"
    )


def _adjusted_views(
    con: duckdb.DuckDBPyConnection, factor_coverage: date | None, wanted: set[str]
) -> None:
    """qfq/hfq quotes from the factors known at the cutoff: per symbol, the vendor of its
    latest factor and only that vendor's series (bases differ between vendors); a row takes
    the last factor on or before its date; qfq divides by the latest factor (the anchor). Rows
    before the first factor or after the covered dates are left out, never served raw."""
    through = f"DATE '{factor_coverage.isoformat()}'" if factor_coverage else "NULL::DATE"
    con.execute(
        f"""
        CREATE VIEW _factors AS
        WITH f AS (SELECT symbol, trade_date, adj_factor, source, known_at, ingested_at
                   FROM {FACTORS.name}_versions),
        last_day AS (SELECT symbol, max(trade_date) AS d FROM f GROUP BY symbol),
        vendor AS (
            SELECT f.symbol, arg_max(f.source, f.known_at) AS source
            FROM f JOIN last_day l ON f.symbol = l.symbol AND f.trade_date = l.d
            GROUP BY f.symbol
        )
        SELECT f.symbol, f.trade_date,
               arg_max(f.adj_factor, f.known_at) AS adj_factor
        FROM f JOIN vendor v ON f.symbol = v.symbol AND f.source = v.source
        GROUP BY f.symbol, f.trade_date
        """
    )
    con.execute(  # one evaluation of _factors serves the join and the anchor (a window)
        f"""
        CREATE VIEW _anchored AS
        SELECT symbol, trade_date, adj_factor,
               arg_max(adj_factor, trade_date) OVER (PARTITION BY symbol) AS anchor,
               greatest(max(trade_date) OVER (PARTITION BY symbol),
                        coalesce({through}, DATE '1900-01-01')) AS covered
        FROM _factors
        """
    )
    schema = PRICES
    for view, mode in ADJUSTED_VIEWS.items():
        if view not in wanted:
            continue
        scale = "f.adj_factor / f.anchor" if mode == "qfq" else "f.adj_factor"
        replaced = ", ".join(f"q.{c} * ({scale}) AS {c}" for c in PRICE_COLUMNS)
        con.execute(
            f"""
            CREATE VIEW {view} AS
            SELECT q.* REPLACE ({replaced}), f.adj_factor
            FROM {ident(PRICES.name)} q
            ASOF JOIN _anchored f ON q.symbol = f.symbol AND q.trade_date >= f.trade_date
            WHERE q.trade_date <= f.covered
            """
        )
    assert set(PRICE_COLUMNS) <= set(schema.columns)


def _calendar_days(store: LakeStore, cutoff: datetime) -> pa.Table:
    """XSHG days with is_open, as `Lake.calendar` answers them: the offline calendar through
    its last day, then the stored vendor calendar rows known at the cutoff."""
    offline_last = XSHG.offline_last
    out = _offline_days(offline_last)
    stored = _visible(store, CALENDAR, cutoff, None)
    if isinstance(stored, ds.Dataset):
        beyond = stored.to_table(
            columns=["exchange", "date", "is_open", "source", "known_at"],
            filter=(pc.field("exchange") == EXCHANGE) & (pc.field("date") > offline_last),
        )
        if beyond.num_rows:
            beyond = beyond.sort_by([("date", "ascending"), ("known_at", "descending")])
            first = pc.not_equal(beyond["date"].slice(1), beyond["date"].slice(0, -1))
            keep = pa.concat_arrays([pa.array([True]), first.combine_chunks()])
            beyond = beyond.filter(keep).select(["date", "is_open", "source"])
            out = pa.concat_tables([out, beyond.cast(out.schema)])
    return out


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
