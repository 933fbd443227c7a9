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

import re
from collections.abc import Callable, Iterable
from datetime import date, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from pitlake.lake.store import LakeStore
from pitlake.read.adjust import FACTORS
from pitlake.read.engine import ident
from pitlake.read.scans import window_slices, years
from pitlake.read.sql_derived import ADJUSTED_VIEWS, PRICES, adjusted_views, calendar_days
from pitlake.read.sql_sessions import SessionedDataset
from pitlake.read.sql_shared import lock, settings
from pitlake.read.superseded import anti_join, register_superseded
from pitlake.records import JSON_COLUMNS
from pitlake.schemas import SCHEMAS, Dataset, Kind, of_kind

if TYPE_CHECKING:
    from pitlake.read.lake import Lake

# Every registered dataset is a versioned view; the calendar is built from the stored sessions
# and the offline calendar instead (its own view below).
VERSIONED = tuple(name for name in SCHEMAS if SCHEMAS[name].kind is not Kind.CALENDAR)
[CALENDAR] = (SCHEMAS[name] for name in of_kind(Kind.CALENDAR))
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
# A statement that never names `symbol` cannot filter on it, so its scans read the symbols
# as dictionaries too (a session's cross-section: 279 → 240 ms, by hand 231, load ~2); a
# join that matches symbols without naming them (NATURAL) only loses the pruning.
SYMBOL = "symbol"


def scanned_as_dictionaries(query: str) -> tuple[str, ...]:
    """The string columns a statement's scans read as Arrow dictionaries."""
    named = set(_WORD.findall(query.lower()))
    return LINEAGE_STRINGS if SYMBOL in named else (*LINEAGE_STRINGS, SYMBOL)


# Every relation a connection can offer, and what each needs built first (the qfq/hfq views
# read the quotes view and the factor series).
RELATIONS = (
    *(f"{d}{s}" for d in VERSIONED for s in ("", "_versions")),
    *ADJUSTED_VIEWS,
    CALENDAR.name,
)
_NEEDS: dict[str, tuple[str, ...]] = {
    **{d: (f"{d}_versions",) for d in VERSIONED},
    **{v: (PRICES.name, f"{FACTORS.name}_versions") for v in ADJUSTED_VIEWS},
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


def referenced(query: str) -> set[str] | None:
    """The relations a statement names, with what they are built from; None (build them all)
    when it names none of them or reads the catalog. A lexical scan, over-inclusive on purpose
    (a name in a comment or a string counts): a miss is only a missing-table error, which
    `answer` retries with every relation. Building one view instead of all of them saves
    most of a small statement's time (each registration and view costs milliseconds)."""
    words = set(_WORD.findall(query.lower()))
    if words & _CATALOG_WORDS or any(w.startswith("duckdb_") for w in words):
        return None
    named = words & set(RELATIONS)
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
    """A DuckDB connection (its own database) holding the point-in-time views at `cutoff`
    (aware), with file access off. `factor_coverage`: the last session the ledger says
    factors were fetched for (adjusted rows after a symbol's last factor are served up to
    it, as `Lake` does). `only`: build just these relations (closed over their needs, see
    `referenced`)."""
    con = duckdb.connect(config={"threads": threads} if threads else {})
    try:
        settings(con)
        populate(con, store, cutoff, as_ingested, factor_coverage=factor_coverage, only=only)
        lock(con)
    except BaseException:
        con.close()
        raise
    return con


def populate(
    con: duckdb.DuckDBPyConnection,
    store: LakeStore,
    cutoff: datetime,
    as_ingested: datetime | None = None,
    *,
    factor_coverage: date | None = None,
    only: Iterable[str] | None = None,
    superseded_scan: Callable[[Dataset], Callable[[list[str]], pa.Table]] | None = None,
    dictionary: Iterable[str] = LINEAGE_STRINGS,
    session_rows: Callable[[Dataset, date], pa.Table | None] | None = None,
) -> None:
    """Register on `con` the relations in `only` (all if None) at the cutoff, as temporary
    views (they die with the connection and no other connection sees them).
    `superseded_scan(schema)`: how to scan the files for the statements' multi-version rows
    when `con` itself has no file access (default: `con`). `dictionary`: the string columns
    scanned as Arrow dictionaries (served as VARCHAR all the same). `session_rows(schema, D)`:
    every stored version of session D, kept (sql_sessions.py; None: scan the files)."""
    wanted = set(RELATIONS) if only is None else set(only)
    for name in VERSIONED:
        schema = SCHEMAS[name]
        if f"{name}_versions" in wanted:
            data = _visible(
                store, schema, cutoff, as_ingested, dictionary=dictionary, session=session_rows
            )
            con.register(f"{name}_versions", data)
        if name in wanted:
            # statements: drop the superseded rows (superseded.py); the other kinds'
            # questions are mostly one session or symbol, filtered below the window,
            # and their multi-version scan (6M quotes) would cost more than it saves
            superseded = (
                register_superseded(
                    con,
                    schema,
                    store.files(name),
                    cutoff,
                    as_ingested,
                    scan=superseded_scan(schema) if superseded_scan else None,
                )
                if schema.kind is Kind.REPORT_PERIOD
                else None
            )
            con.execute(f"CREATE TEMP VIEW {ident(name)} AS {_latest_sql(schema, superseded)}")
    if wanted & set(ADJUSTED_VIEWS):
        adjusted_views(con, factor_coverage, wanted)
    if CALENDAR.name in wanted:
        con.register(CALENDAR.name, calendar_days(_visible(store, CALENDAR, cutoff, None), cutoff))


def _visible(
    store: LakeStore,
    schema: Dataset,
    cutoff: datetime,
    as_ingested: datetime | None,
    *,
    dictionary: Iterable[str] = (),
    session: Callable[[Dataset, date], pa.Table | None] | None = None,
) -> ds.Dataset | pa.Table:
    """The dataset's stored rows public by the cutoff, as a lazily scanned Arrow dataset;
    the `dictionary` string columns are read as dictionaries (DuckDB serves them as VARCHAR);
    a trade-dated dataset's one-session scans from `session` where it keeps the session."""
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
    if session is not None and schema.kind is Kind.TRADE_DATED and schema.date_column:
        if not store.remote and isinstance(data, ds.FileSystemDataset):
            rows = partial(session, schema)
            return SessionedDataset.over(data, condition, schema.date_column, rows)
    return data.filter(condition)


def kept_session(lake: Lake, schema: Dataset, day: date) -> pa.Table | None:
    """Every stored version of `day` in its year's files, as the Lake's cross-section reads
    keep it (None: no local files)."""
    files = lake.store.files(schema.name, years(day, day))
    return window_slices(lake, schema, files, day, day) if files else None


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
