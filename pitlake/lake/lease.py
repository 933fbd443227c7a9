"""Partition write leases held in the catalog, so writers on several machines can share a lake.

A partition write is read → merge → write → record: read the partition file, merge the batch,
write the file back and record it in the catalog's `partition_files`. Two writers doing that at
once lose rows (the later write is built from a read that misses the earlier one's rows). A
local file lock excludes writers on one machine only; the catalog is the one thing every
ingest host shares, so it coordinates them:

- PostgreSQL: a transaction-level advisory lock (`pg_advisory_xact_lock`) on a 64-bit hash of
  the partition, held by one transaction on a dedicated connection for the whole
  read-merge-write-record. A killed writer's session dies and PostgreSQL releases the lock;
  a paused one keeps it (the others wait, nothing is lost).
- SQLite (and any other database): a lease row per partition with an expiry and a fencing
  token that grows with every acquisition. A holder renews the lease while it writes (a
  heartbeat, and at every check); a holder that was paused or killed past the expiry loses it
  to the next writer, and its later checks fail, so it neither writes the file nor records it.

The lease table lives in this module's own metadata and is created only by a writer (a read
never creates or changes anything in the catalog).

The lease is the coordination; on object storage the store also makes each PUT conditional on
the object it read (If-Match / If-None-Match), so a writer whose check and PUT straddle a lost
lease still cannot overwrite a newer file (see `pitlake.lake.store`).
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import BigInteger, Column, DateTime, MetaData, String, Table, select, update
from sqlalchemy.engine import Connection, Engine

from pitlake.errors import LakeUnwritableError
from pitlake.lake.catalog import Catalog
from pitlake.lake.catalog_values import partition_file_row

ENV_TTL = "PITLAKE_LEASE_TTL_S"
ENV_WAIT = "PITLAKE_LEASE_WAIT_S"
DEFAULT_TTL_S = 60.0
DEFAULT_WAIT_S = 600.0  # as long as the local file lock waits
POLL_S = 0.05
DATASET_WIDE = "*"  # the partition name of a lease over a whole dataset

lease_metadata = MetaData()
partition_leases_table = Table(
    "partition_leases",
    lease_metadata,
    Column("name", String(200), primary_key=True),  # "<dataset>/<partition value>"
    Column("holder", String(200)),  # None once released
    Column("token", BigInteger, nullable=False),  # the fencing token: +1 per acquisition
    Column("expires_at", DateTime, nullable=False),  # naive UTC, like every catalog instant
)

Clock = Callable[[], datetime]
Wait = Callable[[float], None]


class PartitionBusyError(LakeUnwritableError):
    """Another writer held the partition for longer than this writer would wait."""


class LeaseLostError(LakeUnwritableError):
    """This writer's lease expired and another writer took the partition: its write is refused
    (the file is not written, the catalog not changed)."""


def lease_name(dataset: str, partition: str) -> str:
    return f"{dataset}/{partition}"


def holder_id() -> str:
    """Who holds a lease: host and pid (for a person reading the table) and a unique suffix."""
    return f"{socket.gethostname()}~{os.getpid()}~{uuid.uuid4().hex[:8]}"


def holder_is_dead(holder: str) -> bool:
    """Is a lease's holder provably gone: a process of this host (its hostname) whose pid no
    longer runs (or is a zombie)? Another host's, or a pid that may be alive, is not (a
    reused pid only delays the takeover to the expiry: the safe side)."""
    host, _, rest = holder.partition("~")
    pid_text = rest.partition("~")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's live process
        return False
    try:  # killed but not yet reaped by its parent
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def _env_seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    value = float(raw)
    if not value > 0:
        raise ValueError(f"${name} must be a positive number of seconds, got {raw!r}")
    return value


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _naive_utc(at: datetime) -> datetime:
    if at.tzinfo is None:
        raise ValueError(f"lease clocks must be timezone-aware, got {at!r}")
    return at.astimezone(timezone.utc).replace(tzinfo=None)


class Holding(Protocol):
    """One held partition. `verify` is called right before the file is written and again
    with the catalog record; it raises LeaseLostError when the hold is gone."""

    token: int

    def verify(self) -> None: ...

    def record_partition_file(
        self,
        dataset: str,
        partition: str,
        path: str,
        rows: int,
        sha256: str,
        run_id: str | None,
    ) -> None: ...


class Coordinator(Protocol):
    """What the store asks for: hold a partition across its read-merge-write-record."""

    def hold(self, dataset: str, partition: str) -> AbstractContextManager[Holding]: ...

    def release_dead_holders(self) -> int: ...


def _record(catalog: Catalog, conn: Connection, values: dict[str, Any]) -> None:
    """Upsert one partition-file record on `conn`, inside the caller's transaction."""
    catalog.upsert_partition_file(conn, values)


# ---------------------------------------------------------------- PostgreSQL: advisory locks


def advisory_key(namespace: str, dataset: str, partition: str) -> int:
    """A signed 64-bit key for pg_advisory_xact_lock(bigint) from the partition's name."""
    digest = hashlib.sha256(f"pitlake:{namespace}:{lease_name(dataset, partition)}".encode())
    return int.from_bytes(digest.digest()[:8], "big", signed=True)


@dataclass
class _AdvisoryHolding:
    catalog: Catalog
    conn: Connection
    key: int
    name: str  # "<dataset>/<partition>", named in errors
    token: int = 0  # advisory locks need no fencing token: the session holds the lock

    def verify(self) -> None:
        """The lock is still ours: our session is alive and pg_locks lists it as granted."""
        high, low = (self.key >> 32) & 0xFFFFFFFF, self.key & 0xFFFFFFFF
        try:
            held = self.conn.exec_driver_sql(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND pid = pg_backend_pid() AND classid = %(h)s::bigint::oid"
                " AND objid = %(l)s::bigint::oid AND objsubid = 1",
                {"h": high, "l": low},
            ).scalar_one()
        except Exception as exc:  # the session is gone: so is the lock
            raise LeaseLostError(
                f"lost the catalog session holding partition {self.name}'s lock: {exc}",
                path=self.name,
            ) from exc
        if not held:
            raise LeaseLostError(
                f"partition {self.name}'s advisory lock is no longer held", path=self.name
            )

    def record_partition_file(
        self,
        dataset: str,
        partition: str,
        path: str,
        rows: int,
        sha256: str,
        run_id: str | None,
    ) -> None:
        """Recorded in the lock's own transaction: the record commits with the lock's release,
        or not at all if the session dies first."""
        self.verify()
        _record(
            self.catalog,
            self.conn,
            partition_file_row(dataset, partition, path, rows, sha256, run_id),
        )


class AdvisoryLocks:
    """Partition holds as PostgreSQL transaction-level advisory locks."""

    def __init__(self, catalog: Catalog, *, wait_s: float | None = None) -> None:
        self.catalog = catalog
        self.engine: Engine = catalog.engine
        self.wait_s = _env_seconds(ENV_WAIT, DEFAULT_WAIT_S) if wait_s is None else wait_s
        with self.engine.connect() as conn:
            # Advisory locks are database-wide: two catalogs in one database (schemas) must not
            # share keys.
            self.namespace = str(conn.exec_driver_sql("SELECT current_schema()").scalar_one())

    @contextmanager
    def hold(self, dataset: str, partition: str) -> Iterator[_AdvisoryHolding]:
        key = advisory_key(self.namespace, dataset, partition)
        with self.engine.connect() as conn, conn.begin():
            # 0 would mean "wait forever": at least 1 ms.
            timeout_ms = max(1, int(self.wait_s * 1000))
            conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{timeout_ms}ms'")
            try:
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(%(k)s)", {"k": key})
            except Exception as exc:
                if "lock timeout" in str(exc).lower() or "lock_not_available" in str(exc):
                    raise PartitionBusyError(
                        f"partition {lease_name(dataset, partition)} is held by another "
                        f"writer: waited {self.wait_s:g} s",
                        path=lease_name(dataset, partition),
                    ) from exc
                raise
            yield _AdvisoryHolding(self.catalog, conn, key, lease_name(dataset, partition))

    def release_dead_holders(self) -> int:
        """Nothing to release: a killed writer's session ends and PostgreSQL drops its lock."""
        return 0


# ---------------------------------------------------------------- SQLite and others: leases


class _LeaseHolding:
    def __init__(self, leases: Leases, name: str, token: int) -> None:
        self.leases, self.name, self.token = leases, name, token
        self._lock = threading.Lock()  # the heartbeat and the writer renew on one row
        self.lost: LeaseLostError | None = None

    def _check_and_renew(self, conn: Connection) -> None:
        """In the caller's write transaction: still ours and unexpired, then extended."""
        leases = self.leases
        t = partition_leases_table.c
        now = _naive_utc(leases.clock())
        row = conn.execute(
            select(t.holder, t.token, t.expires_at).where(t.name == self.name)
        ).first()
        if row is None or row.token != self.token or row.holder != leases.holder:
            self.lost = LeaseLostError(
                f"lease on partition {self.name} was taken over (our token {self.token}, "
                f"now {row.token if row else 'none'}): this write is refused",
                path=self.name,
            )
            raise self.lost
        if row.expires_at <= now:
            self.lost = LeaseLostError(
                f"lease on partition {self.name} expired at {row.expires_at.isoformat()}Z "
                f"(token {self.token}): this write is refused",
                path=self.name,
            )
            raise self.lost
        conn.execute(
            update(partition_leases_table)
            .where(t.name == self.name, t.token == self.token)
            .values(expires_at=now + timedelta(seconds=leases.ttl_s))
        )

    def verify(self) -> None:
        with self._lock, leases_tx(self.leases.engine) as conn:
            self._check_and_renew(conn)

    renew = verify

    def record_partition_file(
        self,
        dataset: str,
        partition: str,
        path: str,
        rows: int,
        sha256: str,
        run_id: str | None,
    ) -> None:
        """Fenced: the token check and the record commit in one transaction."""
        values = partition_file_row(dataset, partition, path, rows, sha256, run_id)
        with self._lock, leases_tx(self.leases.engine) as conn:
            self._check_and_renew(conn)
            _record(self.leases.catalog, conn, values)

    def release(self) -> None:
        t = partition_leases_table.c
        with self._lock, leases_tx(self.leases.engine) as conn:
            conn.execute(
                update(partition_leases_table)
                .where(t.name == self.name, t.token == self.token, t.holder == self.leases.holder)
                .values(holder=None, expires_at=_naive_utc(self.leases.clock()))
            )


@contextmanager
def leases_tx(engine: Engine) -> Iterator[Connection]:
    """A write transaction (BEGIN IMMEDIATE on SQLite, through the catalog's begin hook)."""
    with engine.connect() as conn:
        conn.execution_options(pitlake_write=True)
        with conn.begin():
            yield conn


class Leases:
    """Partition holds as lease rows with expiry and fencing tokens (any SQL database)."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        ttl_s: float | None = None,
        wait_s: float | None = None,
        clock: Clock = _utc_now,
        wait: Wait = time.sleep,
        heartbeat: bool = True,
        holder: str | None = None,
    ) -> None:
        self.catalog = catalog
        self.engine: Engine = catalog.engine
        self.ttl_s = _env_seconds(ENV_TTL, DEFAULT_TTL_S) if ttl_s is None else ttl_s
        self.wait_s = _env_seconds(ENV_WAIT, DEFAULT_WAIT_S) if wait_s is None else wait_s
        self.clock, self.wait, self.heartbeat = clock, wait, heartbeat
        self.holder = holder or holder_id()
        partition_leases_table.create(self.engine, checkfirst=True)  # writers only

    def try_acquire(self, dataset: str, partition: str) -> _LeaseHolding | None:
        """Take the lease if it is free or expired (the token grows); None if it is held."""
        name = lease_name(dataset, partition)
        t = partition_leases_table.c
        now = _naive_utc(self.clock())
        expires = now + timedelta(seconds=self.ttl_s)
        with leases_tx(self.engine) as conn:
            row = conn.execute(
                select(t.holder, t.token, t.expires_at).where(t.name == name)
            ).first()
            if row is None:
                conn.execute(
                    partition_leases_table.insert().values(
                        name=name, holder=self.holder, token=1, expires_at=expires
                    )
                )
                return _LeaseHolding(self, name, 1)
            if row.holder is not None and row.expires_at > now and not holder_is_dead(row.holder):
                return None  # held, by a live (or another host's) writer
            token = int(row.token) + 1
            conn.execute(
                update(partition_leases_table)
                .where(t.name == name, t.token == row.token)
                .values(holder=self.holder, token=token, expires_at=expires)
            )
            return _LeaseHolding(self, name, token)

    def release_dead_holders(self) -> int:
        """Release every lease row whose holder is provably dead on this host (a writer
        SIGKILLed inside a partition hold): the row would otherwise name the dead process as
        holder until some writer happens to want that partition. The row stays, its holder
        cleared as a normal release does, so the fencing token keeps growing. Returns how
        many rows were released."""
        t = partition_leases_table.c
        with self.engine.connect() as conn:
            held = conn.execute(
                select(t.name, t.holder, t.token).where(t.holder.is_not(None))
            ).all()
        dead = [r for r in held if holder_is_dead(r.holder)]
        released = 0
        for row in dead:
            with leases_tx(self.engine) as conn:
                released += conn.execute(
                    update(partition_leases_table)
                    .where(t.name == row.name, t.token == row.token, t.holder == row.holder)
                    .values(holder=None, expires_at=_naive_utc(self.clock()))
                ).rowcount
        return released

    def acquire(self, dataset: str, partition: str) -> _LeaseHolding:
        waited = 0.0
        while True:
            got = self.try_acquire(dataset, partition)
            if got is not None:
                return got
            if waited >= self.wait_s:
                name = lease_name(dataset, partition)
                raise PartitionBusyError(
                    f"partition {name} is leased by another writer: waited {self.wait_s:g} s",
                    path=name,
                )
            self.wait(POLL_S)
            waited += POLL_S

    @contextmanager
    def hold(self, dataset: str, partition: str) -> Iterator[_LeaseHolding]:
        holding = self.acquire(dataset, partition)
        stop = threading.Event()
        beat = None
        if self.heartbeat:
            beat = threading.Thread(
                target=_heartbeat, args=(holding, stop, self.ttl_s / 3), daemon=True
            )
            beat.start()
        try:
            yield holding
        finally:
            stop.set()
            if beat is not None:
                beat.join()
            if holding.lost is None:
                holding.release()


def _heartbeat(holding: _LeaseHolding, stop: threading.Event, every_s: float) -> None:
    """Renew the lease while a long partition is merged; stop once it is lost."""
    while not stop.wait(every_s):
        try:
            holding.renew()
        except LeaseLostError:
            return
        except Exception:  # a busy catalog: the next beat (or the writer's check) retries
            continue


def coordinator_for(catalog: Catalog, **options: Any) -> AdvisoryLocks | Leases:
    """The partition coordinator for a catalog: advisory locks on PostgreSQL, leases elsewhere.
    Options go to `Leases` (ttl_s, wait_s, clock, …) or `AdvisoryLocks` (wait_s)."""
    if catalog.engine.dialect.name == "postgresql":
        return AdvisoryLocks(catalog, wait_s=options.get("wait_s"))
    return Leases(catalog, **options)
