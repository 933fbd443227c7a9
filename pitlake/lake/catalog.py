"""The catalog (docs/design.md §5): runs, the fetch ledger, partition files, validations, quarantine.

SQLAlchemy Core on any URL: `sqlite:///<lake>/catalog.db` by default, `PITLAKE_CATALOG_URL` or an
explicit URL otherwise (PostgreSQL through psycopg 3: `postgresql+psycopg://…`).

The ledger is the source of every answer's status: per (dataset, date, symbol) it holds the last
fetch outcome ('*' = a whole-market fetch); `ledger_events` keeps every record for history.
Instants are stored as naive UTC on every backend and returned timezone-aware (UTC).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Engine,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    create_engine,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from pitlake.calendar import beijing, to_date
from pitlake.pit import iso_beijing
from pitlake.statuses import SUCCESSFUL_FETCH, LedgerStatus

ENV_URL = "PITLAKE_CATALOG_URL"
WHOLE_MARKET = "*"
SEVERITIES = ("blocking", "warning")
SQLITE_BUSY_TIMEOUT_MS = 30_000
CATALOG_FILE = "catalog.db"

metadata = MetaData()

runs_table = Table(
    "runs",
    metadata,
    Column("run_id", String(128), primary_key=True),
    Column("flow", String(64), nullable=False),
    Column("params", JSON, nullable=False),
    Column("status", String(32), nullable=False),
    Column("summary", JSON),
    Column("started_at", DateTime, nullable=False),
    Column("ended_at", DateTime),
)
Index("ix_runs_started", runs_table.c.started_at)


def _ledger_columns() -> list[Column]:
    return [
        Column("status", String(32), nullable=False),
        Column("row_count", BigInteger, nullable=False),
        Column("vendor", String(64)),
        Column("trace", JSON, nullable=False),
        Column("message", Text, nullable=False),
        Column("run_id", String(128)),
        Column("recorded_at", DateTime, nullable=False),
    ]


ledger_table = Table(
    "ledger",
    metadata,
    Column("dataset", String(32), primary_key=True),
    Column("date_key", Date, primary_key=True),
    Column("symbol", String(32), primary_key=True),
    *_ledger_columns(),
)
Index("ix_ledger_dataset_status", ledger_table.c.dataset, ledger_table.c.status)

ledger_events_table = Table(
    "ledger_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("dataset", String(32), nullable=False),
    Column("date_key", Date, nullable=False),
    Column("symbol", String(32), nullable=False),
    *_ledger_columns(),
)
Index(
    "ix_ledger_events_key",
    ledger_events_table.c.dataset,
    ledger_events_table.c.date_key,
    ledger_events_table.c.symbol,
)

partition_files_table = Table(
    "partition_files",
    metadata,
    Column("dataset", String(32), primary_key=True),
    Column("partition_value", String(64), primary_key=True),
    Column("path", Text, nullable=False),
    Column("row_count", BigInteger, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("run_id", String(128)),
    Column("recorded_at", DateTime, nullable=False),
)

validations_table = Table(
    "validations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(128)),
    Column("dataset", String(32), nullable=False),
    Column("partition_value", String(64)),
    Column("date_key", Date),
    Column("suite", String(128), nullable=False),
    Column("success", Boolean, nullable=False),
    Column("severity", String(16), nullable=False),
    Column("evaluated", Integer, nullable=False),
    Column("failed", Integer, nullable=False),
    Column("failed_expectations", JSON, nullable=False),
    Column("recorded_at", DateTime, nullable=False),
)
Index("ix_validations_dataset", validations_table.c.dataset, validations_table.c.recorded_at)

quarantine_table = Table(
    "quarantine",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(128)),
    Column("dataset", String(32), nullable=False),
    Column("date_key", Date),
    Column("path", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("failed_expectations", JSON, nullable=False),
    Column("sample_rows", JSON, nullable=False),
    Column("recorded_at", DateTime, nullable=False),
)
Index("ix_quarantine_recorded", quarantine_table.c.recorded_at)


# ---------------------------------------------------------------- values


def to_utc_naive(at: datetime | None) -> datetime:
    """The storage form of an instant. None is now; a naive value is Beijing wall time
    (pitlake's rule for offset-less times), never the host's zone."""
    if at is None:
        at = datetime.now(timezone.utc)
    return beijing(at).astimezone(timezone.utc).replace(tzinfo=None)


def from_storage(at: datetime | None) -> datetime | None:
    if at is None:
        return None
    return at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)


def json_safe(value: Any) -> Any:
    """Plain JSON (strict: no NaN) from vendor traces and sample rows."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v) for v in value]
    if isinstance(value, datetime):
        return iso_beijing(value) if value.tzinfo else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays
    if callable(tolist):
        return json_safe(tolist())
    try:
        if value != value:  # NaT and friends
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def _iso(at: datetime | None) -> str | None:
    return iso_beijing(at) if at is not None else None


@dataclass(frozen=True)
class Run:
    run_id: str
    flow: str
    params: dict[str, Any]
    status: str
    summary: dict[str, Any] | None
    started_at: datetime
    ended_at: datetime | None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["started_at"], d["ended_at"] = _iso(self.started_at), _iso(self.ended_at)
        return d


@dataclass(frozen=True)
class LedgerEntry:
    dataset: str
    date_key: date
    symbol: str
    status: LedgerStatus
    rows: int
    vendor: str | None
    trace: list[dict[str, Any]]
    message: str
    run_id: str | None
    recorded_at: datetime

    @property
    def successful(self) -> bool:
        """The vendor answered (with or without rows): the only basis for NO_DATA."""
        return self.status in SUCCESSFUL_FETCH

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["status"] = str(self.status)
        d["date_key"] = self.date_key.isoformat()
        d["recorded_at"] = _iso(self.recorded_at)
        return d


@dataclass(frozen=True)
class PartitionFileRecord:
    dataset: str
    partition: str
    path: str
    rows: int
    sha256: str
    run_id: str | None
    recorded_at: datetime

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["recorded_at"] = _iso(self.recorded_at)
        return d


@dataclass(frozen=True)
class ValidationRecord:
    id: int
    run_id: str | None
    dataset: str
    partition: str | None
    date_key: date | None
    suite: str
    success: bool
    severity: str
    evaluated: int
    failed: int
    failed_expectations: list[dict[str, Any]]
    recorded_at: datetime

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["date_key"] = self.date_key.isoformat() if self.date_key else None
        d["recorded_at"] = _iso(self.recorded_at)
        return d


@dataclass(frozen=True)
class QuarantineRecord:
    id: int
    run_id: str | None
    dataset: str
    date_key: date | None
    path: str
    reason: str
    failed_expectations: list[dict[str, Any]]
    sample_rows: list[dict[str, Any]] = field(default_factory=list)
    recorded_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["date_key"] = self.date_key.isoformat() if self.date_key else None
        d["recorded_at"] = _iso(self.recorded_at)
        return d


# ---------------------------------------------------------------- engine


def resolve_url(
    url: str | None, lake_root: str | os.PathLike[str] | None, *, create: bool = True
) -> str:
    """Explicit URL, else $PITLAKE_CATALOG_URL, else `<lake_root>/catalog.db` (SQLite).
    `create=False` (a read) never makes the lake directory."""
    url = url or os.environ.get(ENV_URL) or None
    if url is None:
        if lake_root is None:
            raise ValueError(f"no catalog URL: pass url=, set {ENV_URL}, or give lake_root=")
        if "://" in str(lake_root):  # s3://…: no SQLite file can live beside the objects
            raise ValueError(
                f"the lake {lake_root} is on object storage: give a catalog URL (url= or "
                f"${ENV_URL}), e.g. postgresql://… or sqlite:////local/path/catalog.db"
            )
        root = Path(lake_root)
        if create:
            root.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{root.resolve() / CATALOG_FILE}"
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):  # psycopg 3 is the driver we ship, not psycopg2
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


def sqlite_file(url: str) -> Path | None:
    """The database file of a SQLite URL (None: another backend, or in memory)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def _configure_sqlite(engine: Engine, *, read_only: bool = False) -> None:
    """WAL (readers never block the writer), a busy timeout, and BEGIN IMMEDIATE for writes:
    a deferred transaction that later writes can fail at once with 'database is locked'.
    A read-only catalog sets no journal mode (that is a write) and never begins a write."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        if not read_only:
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        write = conn.get_execution_options().get("pitlake_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def _read_only_sessions(engine: Engine) -> None:
    """Every PostgreSQL session of a read-only catalog refuses writes (a SET on connect, so an
    `options=` the URL carries, a search_path say, is kept)."""

    @event.listens_for(engine, "connect", insert=True)
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        autocommit = dbapi_conn.autocommit
        dbapi_conn.autocommit = True
        cur = dbapi_conn.cursor()
        cur.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        cur.close()
        dbapi_conn.autocommit = autocommit


def partition_file_row(
    dataset: str,
    partition: str,
    path: str | os.PathLike[str],
    rows: int,
    sha256: str,
    run_id: str | None = None,
    at: datetime | None = None,
) -> dict[str, Any]:
    """The `partition_files` row of one written partition file (every writer builds it here)."""
    return {
        "dataset": dataset,
        "partition_value": str(partition),
        "path": str(path),
        "row_count": int(rows),
        "sha256": sha256,
        "run_id": run_id,
        "recorded_at": to_utc_naive(at),
    }


class Catalog:
    """Runs, ledger, partition files, validations and quarantine entries of one lake.

    `read_only=True` (every read surface) writes nothing, anywhere: no directory or file is
    created, no table, no journal mode; a SQLite catalog that is missing or holds no pitlake
    tables raises `NotALakeError` here, and its connections are opened as
    `pitlake.lake.readonly` explains. On PostgreSQL every transaction is READ ONLY."""

    def __init__(
        self,
        url: str | None = None,
        *,
        lake_root: str | os.PathLike[str] | None = None,
        echo: bool = False,
        read_only: bool = False,
    ) -> None:
        self.url = resolve_url(url, lake_root, create=not read_only)
        self.read_only = read_only
        kwargs: dict[str, Any] = {"echo": echo, "future": True}
        ro_file = sqlite_file(self.url) if read_only else None
        if ro_file is not None:
            from pitlake.lake.readonly import connect_read_only, require_catalog_file

            require_catalog_file(ro_file, lake_root if url is None else None)
            timeout = SQLITE_BUSY_TIMEOUT_MS / 1000
            kwargs["creator"] = lambda: connect_read_only(ro_file, timeout)
            kwargs["poolclass"] = NullPool  # each connection picks its open mode afresh
        elif self.url.startswith("sqlite"):
            kwargs["connect_args"] = {
                "check_same_thread": False,
                "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
            }
        else:
            kwargs["pool_pre_ping"] = True
        self.engine = create_engine(self.url, **kwargs)
        if self.engine.dialect.name == "sqlite":
            _configure_sqlite(self.engine, read_only=read_only)
        elif read_only and self.engine.dialect.name == "postgresql":
            _read_only_sessions(self.engine)
        if not read_only:
            self._create_tables()

    def _create_tables(self) -> None:
        try:
            metadata.create_all(self.engine)
        except DBAPIError:
            # Two processes creating the same fresh catalog: the loser's CREATE fails;
            # the tables exist now, so a second pass (which checks first) is a no-op.
            metadata.create_all(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Catalog({self.engine.url.render_as_string(hide_password=True)!r})"

    @contextmanager
    def _tx(self, *, write: bool = False) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            if write:
                conn.execution_options(pitlake_write=True)
            with conn.begin():
                yield conn

    def _upsert(
        self,
        conn: Connection,
        table: Table,
        values: dict[str, Any],
        keys: Sequence[str],
        *,
        unless_newer: str | None = None,
    ) -> None:
        """Insert or update by primary key. With `unless_newer`, a stored row whose column is
        later than the new value is kept (records arriving out of order never regress)."""
        changes = {k: v for k, v in values.items() if k not in keys}
        dialect = conn.dialect.name
        if dialect in ("sqlite", "postgresql"):
            make = sqlite_insert if dialect == "sqlite" else pg_insert
            ins = make(table).values(**values)
            where = table.c[unless_newer] <= ins.excluded[unless_newer] if unless_newer else None
            conn.execute(
                ins.on_conflict_do_update(
                    index_elements=list(keys),
                    set_={k: ins.excluded[k] for k in changes},
                    where=where,
                )
            )
            return
        match = and_(*(table.c[k] == values[k] for k in keys))
        found = conn.execute(select(func.count()).select_from(table).where(match)).scalar_one()
        if not found:
            conn.execute(insert(table).values(**values))
            return
        stmt = update(table).where(match).values(**changes)
        if unless_newer:
            stmt = stmt.where(table.c[unless_newer] <= values[unless_newer])
        conn.execute(stmt)

    # ------------------------------------------------------------ runs

    def start_run(
        self,
        run_id: str,
        flow: str,
        params: Mapping[str, Any] | None = None,
        started_at: datetime | None = None,
    ) -> None:
        values = {
            "run_id": run_id,
            "flow": flow,
            "params": json_safe(dict(params or {})),
            "status": "RUNNING",
            "summary": None,
            "started_at": to_utc_naive(started_at),
            "ended_at": None,
        }
        with self._tx(write=True) as conn:
            self._upsert(conn, runs_table, values, ["run_id"])

    def finish_run(
        self,
        run_id: str,
        status: str,
        summary: Mapping[str, Any] | None = None,
        ended_at: datetime | None = None,
    ) -> None:
        ended = to_utc_naive(ended_at)
        with self._tx(write=True) as conn:
            done = conn.execute(
                update(runs_table)
                .where(runs_table.c.run_id == run_id)
                .values(status=str(status), summary=json_safe(dict(summary or {})), ended_at=ended)
            )
            if done.rowcount == 0:  # never started (crashed early): still leave a record
                conn.execute(
                    insert(runs_table).values(
                        run_id=run_id,
                        flow="",
                        params={},
                        status=str(status),
                        summary=json_safe(dict(summary or {})),
                        started_at=ended,
                        ended_at=ended,
                    )
                )

    def run(self, run_id: str) -> Run | None:
        with self._tx() as conn:
            row = conn.execute(select(runs_table).where(runs_table.c.run_id == run_id)).first()
        return self._run(row) if row else None

    def runs(self, limit: int = 50) -> list[Run]:
        """Newest first."""
        stmt = (
            select(runs_table)
            .order_by(runs_table.c.started_at.desc(), runs_table.c.run_id.desc())
            .limit(limit)
        )
        with self._tx() as conn:
            return [self._run(r) for r in conn.execute(stmt)]

    @staticmethod
    def _run(r: Any) -> Run:
        return Run(
            run_id=r.run_id,
            flow=r.flow,
            params=r.params or {},
            status=r.status,
            summary=r.summary,
            started_at=from_storage(r.started_at),  # type: ignore[arg-type]
            ended_at=from_storage(r.ended_at),
        )

    # ------------------------------------------------------------ ledger

    def record_ledger(
        self,
        dataset: str,
        date_key: date | str,
        status: LedgerStatus | str,
        *,
        symbol: str = WHOLE_MARKET,
        rows: int = 0,
        vendor: str | None = None,
        trace: Iterable[Mapping[str, Any]] = (),
        message: str = "",
        run_id: str | None = None,
        at: datetime | None = None,
    ) -> LedgerEntry:
        """Record one fetch outcome: the ledger keeps the latest per key (by `at`), the
        events table keeps them all."""
        status = LedgerStatus(status)
        if rows < 0:
            raise ValueError(f"rows must be >= 0, got {rows}")
        values = {
            "dataset": dataset,
            "date_key": to_date(date_key),
            "symbol": symbol or WHOLE_MARKET,
            "status": status.value,
            "row_count": int(rows),
            "vendor": vendor,
            "trace": json_safe(list(trace)),
            "message": message or "",
            "run_id": run_id,
            "recorded_at": to_utc_naive(at),
        }
        with self._tx(write=True) as conn:
            conn.execute(insert(ledger_events_table).values(**values))
            self._upsert(
                conn,
                ledger_table,
                values,
                ["dataset", "date_key", "symbol"],
                unless_newer="recorded_at",
            )
        return self._entry(values)

    def ledger_entry(
        self, dataset: str, date_key: date | str, symbol: str = WHOLE_MARKET
    ) -> LedgerEntry | None:
        t = ledger_table.c
        stmt = select(ledger_table).where(
            t.dataset == dataset, t.date_key == to_date(date_key), t.symbol == symbol
        )
        with self._tx() as conn:
            row = conn.execute(stmt).first()
        return self._entry(row._mapping) if row else None

    def ledger_entries(
        self,
        dataset: str | None = None,
        start: date | str | None = None,
        end: date | str | None = None,
        symbol: str | Iterable[str] | None = None,
    ) -> list[LedgerEntry]:
        """Latest entries, ordered by dataset, date, symbol. `symbol` may be one or several."""
        t = ledger_table.c
        stmt = select(ledger_table)
        if dataset is not None:
            stmt = stmt.where(t.dataset == dataset)
        if start is not None:
            stmt = stmt.where(t.date_key >= to_date(start))
        if end is not None:
            stmt = stmt.where(t.date_key <= to_date(end))
        if symbol is not None:
            symbols = [symbol] if isinstance(symbol, str) else list(symbol)
            stmt = stmt.where(t.symbol.in_(symbols))
        stmt = stmt.order_by(t.dataset, t.date_key, t.symbol)
        with self._tx() as conn:
            return [self._entry(r._mapping) for r in conn.execute(stmt)]

    def ledger_history(
        self, dataset: str, date_key: date | str, symbol: str = WHOLE_MARKET
    ) -> list[LedgerEntry]:
        """Every record for one key, oldest first."""
        t = ledger_events_table.c
        stmt = (
            select(ledger_events_table)
            .where(t.dataset == dataset, t.date_key == to_date(date_key), t.symbol == symbol)
            .order_by(t.recorded_at, t.id)
        )
        with self._tx() as conn:
            return [self._entry(r._mapping) for r in conn.execute(stmt)]

    def latest_ok_date(
        self,
        dataset: str,
        *,
        statuses: Iterable[LedgerStatus] = SUCCESSFUL_FETCH,
    ) -> date | None:
        """The latest date with a successful fetch (OK or NO_DATA by default): freshness."""
        t = ledger_table.c
        wanted = [LedgerStatus(s).value for s in statuses]
        stmt = select(func.max(t.date_key)).where(t.dataset == dataset, t.status.in_(wanted))
        with self._tx() as conn:
            return conn.execute(stmt).scalar_one_or_none()

    def latest_ok_dates(self, until: date) -> dict[str, date]:
        """Per dataset, the latest date on or before `until` with a successful fetch (OK or
        NO_DATA) for any scope: the freshness the status endpoint and the dashboard show."""
        t = ledger_table.c
        ok = [s.value for s in SUCCESSFUL_FETCH]
        stmt = (
            select(t.dataset, func.max(t.date_key))
            .where(t.status.in_(ok), t.date_key <= until)
            .group_by(t.dataset)
        )
        with self._tx() as conn:
            return dict(conn.execute(stmt).all())  # type: ignore[arg-type]

    @staticmethod
    def _entry(m: Mapping[str, Any]) -> LedgerEntry:
        return LedgerEntry(
            dataset=m["dataset"],
            date_key=m["date_key"],
            symbol=m["symbol"],
            status=LedgerStatus(m["status"]),
            rows=int(m["row_count"]),
            vendor=m["vendor"],
            trace=list(m["trace"] or []),
            message=m["message"] or "",
            run_id=m["run_id"],
            recorded_at=from_storage(m["recorded_at"]),  # type: ignore[arg-type]
        )

    # ------------------------------------------------------------ partition files

    def record_partition_file(
        self,
        dataset: str,
        partition: str,
        path: str | os.PathLike[str],
        rows: int,
        sha256: str,
        run_id: str | None = None,
        at: datetime | None = None,
    ) -> None:
        row = partition_file_row(dataset, partition, path, rows, sha256, run_id, at)
        with self._tx(write=True) as conn:
            self.upsert_partition_file(conn, row)

    def upsert_partition_file(self, conn: Any, row: dict[str, Any]) -> None:
        """One partition-file record on `conn`, inside the caller's transaction (the catalog
        holds of `pitlake.lake.lease` record inside their own lock or fencing transaction)."""
        self._upsert(conn, partition_files_table, row, ["dataset", "partition_value"])

    def partition_files(self, dataset: str | None = None) -> list[PartitionFileRecord]:
        t = partition_files_table.c
        stmt = select(partition_files_table).order_by(t.dataset, t.partition_value)
        if dataset is not None:
            stmt = stmt.where(t.dataset == dataset)
        with self._tx() as conn:
            return [
                PartitionFileRecord(
                    dataset=r.dataset,
                    partition=r.partition_value,
                    path=r.path,
                    rows=int(r.row_count),
                    sha256=r.sha256,
                    run_id=r.run_id,
                    recorded_at=from_storage(r.recorded_at),  # type: ignore[arg-type]
                )
                for r in conn.execute(stmt)
            ]

    # ------------------------------------------------------------ validations

    def record_validation(
        self,
        run_id: str | None,
        dataset: str,
        partition: str | None,
        suite: str,
        success: bool,
        severity: str,
        evaluated: int,
        failed: int,
        failed_expectations: Iterable[Mapping[str, Any]] = (),
        at: datetime | None = None,
        date_key: date | str | None = None,
    ) -> int:
        if severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, got {severity!r}")
        values = {
            "run_id": run_id,
            "dataset": dataset,
            "partition_value": partition,
            "date_key": to_date(date_key) if date_key is not None else None,
            "suite": suite,
            "success": bool(success),
            "severity": severity,
            "evaluated": int(evaluated),
            "failed": int(failed),
            "failed_expectations": json_safe(list(failed_expectations)),
            "recorded_at": to_utc_naive(at),
        }
        with self._tx(write=True) as conn:
            res = conn.execute(insert(validations_table).values(**values))
            return int(res.inserted_primary_key[0])

    def validations(
        self, dataset: str | None = None, limit: int = 100, *, run_id: str | None = None
    ) -> list[ValidationRecord]:
        """Newest first."""
        t = validations_table.c
        stmt = select(validations_table).order_by(t.recorded_at.desc(), t.id.desc()).limit(limit)
        if dataset is not None:
            stmt = stmt.where(t.dataset == dataset)
        if run_id is not None:
            stmt = stmt.where(t.run_id == run_id)
        with self._tx() as conn:
            return [
                ValidationRecord(
                    id=r.id,
                    run_id=r.run_id,
                    dataset=r.dataset,
                    partition=r.partition_value,
                    date_key=r.date_key,
                    suite=r.suite,
                    success=bool(r.success),
                    severity=r.severity,
                    evaluated=int(r.evaluated),
                    failed=int(r.failed),
                    failed_expectations=list(r.failed_expectations or []),
                    recorded_at=from_storage(r.recorded_at),  # type: ignore[arg-type]
                )
                for r in conn.execute(stmt)
            ]

    # ------------------------------------------------------------ quarantine

    def record_quarantine(
        self,
        run_id: str | None,
        dataset: str,
        date_key: date | str | None,
        path: str | os.PathLike[str],
        reason: str,
        failed_expectations: Iterable[Mapping[str, Any]] = (),
        sample_rows: Iterable[Mapping[str, Any]] = (),
        at: datetime | None = None,
    ) -> int:
        values = {
            "run_id": run_id,
            "dataset": dataset,
            "date_key": to_date(date_key) if date_key is not None else None,
            "path": str(path),
            "reason": reason,
            "failed_expectations": json_safe(list(failed_expectations)),
            "sample_rows": json_safe(list(sample_rows)),
            "recorded_at": to_utc_naive(at),
        }
        with self._tx(write=True) as conn:
            res = conn.execute(insert(quarantine_table).values(**values))
            return int(res.inserted_primary_key[0])

    def quarantines(self, limit: int = 50, *, dataset: str | None = None) -> list[QuarantineRecord]:
        """Newest first."""
        t = quarantine_table.c
        stmt = select(quarantine_table).order_by(t.recorded_at.desc(), t.id.desc()).limit(limit)
        if dataset is not None:
            stmt = stmt.where(t.dataset == dataset)
        with self._tx() as conn:
            return [
                QuarantineRecord(
                    id=r.id,
                    run_id=r.run_id,
                    dataset=r.dataset,
                    date_key=r.date_key,
                    path=r.path,
                    reason=r.reason,
                    failed_expectations=list(r.failed_expectations or []),
                    sample_rows=list(r.sample_rows or []),
                    recorded_at=from_storage(r.recorded_at),
                )
                for r in conn.execute(stmt)
            ]
