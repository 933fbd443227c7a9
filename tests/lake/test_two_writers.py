"""Two ingest hosts, one object-store lake: partition writes coordinated through the catalog.

Each "host" is a real OS process (forked) with its own local lock directory, so
the local file lock cannot serialise them: only the catalog can. The lake is on moto in server
mode on 127.0.0.1 (the fixtures of test_s3.py); the catalog is PostgreSQL (an advisory lock per
partition) or a SQLite file (a lease row with expiry and a fencing token).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect

from pitlake.lake.catalog import Catalog
from pitlake.lake.catalog_engine import resolve_url
from pitlake.lake.fs import ObjectChangedError, ObjectFS
from pitlake.lake.lease import (
    AdvisoryLocks,
    LeaseLostError,
    Leases,
    PartitionBusyError,
    coordinator_for,
    partition_leases_table,
)
from pitlake.lake.locking import locked
from pitlake.lake.store import LakeStore
from tests.flows.helpers import listed_on
from tests.lake.conftest import IN_CI, INGEST, PG_URL, bar, fresh_pg_url, write
from tests.lake.test_s3 import URL, RequestLog, s3, s3_server  # noqa: F401 (fixtures)

# Forked, not spawned: a spawned host spends seconds importing pandas, pyarrow and Great
# Expectations again. The parent holds no catalog connection and has no request in flight when
# it forks (fsspec resets its event loop and instance cache in a forked child).
FORK = mp.get_context("fork")
BATCHES = 12  # per writer; each batch touches the 2024 and the 2025 partition
DEADLINE_S = 120.0  # a bound on waiting for a child, never a pause


# ---------------------------------------------------------------- the writer processes


def _symbol(host: str, i: int, j: int) -> str:
    base = 600000 if host == "a" else 0
    return f"{base + i * 10 + j:06d}.{'SH' if host == 'a' else 'SZ'}"


def _batch_rows(host: str, i: int) -> list[dict[str, Any]]:
    """Two symbols × one 2024 and one 2025 session: both year partitions, distinct keys."""
    return [
        bar(_symbol(host, i, j), day, 10.0 + i)
        for j in range(2)
        for day in ("2024-12-30", "2025-06-03")
    ]


def _open_store(catalog_url: str, **lease_options: Any) -> tuple[Catalog, LakeStore]:
    cat = Catalog(catalog_url)
    return cat, LakeStore(URL, coordinator=coordinator_for(cat, **lease_options))


def _host(
    host: str,
    catalog_url: str,
    lock_dir: str,
    batches: int,
    go: Any,
    pause_in: int | None,
    paused: Any,
    resume: Any,
) -> None:
    """One ingest host: `batches` store writes into the shared partitions. With `pause_in`,
    the write of that batch stops inside its partition hold (after the read, before the
    merge is written) until `resume` is set or the process is killed."""
    os.environ["PITLAKE_LOCK_DIR"] = lock_dir  # its own machine: no shared file lock
    cat, store = _open_store(catalog_url)
    current = {"batch": -1}
    if pause_in is not None:
        merge = LakeStore._merge_into_partition

        def merge_then_pause(self: LakeStore, *args: Any, **kwargs: Any) -> Any:
            if current["batch"] == pause_in:
                paused.set()
                resume.wait()
            return merge(self, *args, **kwargs)

        LakeStore._merge_into_partition = merge_then_pause  # type: ignore[method-assign]
    go.wait()
    for i in range(batches):
        current["batch"] = i
        write(store, "quotes", _batch_rows(host, i), ingested_at=INGEST, run_id=f"{host}-{i}")
    cat.close()


class Hosts:
    """Starts writer processes and waits for them within a deadline."""

    def __init__(self, catalog_url: str, tmp_path: Path) -> None:
        self.catalog_url, self.tmp_path = catalog_url, tmp_path
        self.go = FORK.Event()
        self.procs: list[Any] = []
        self.events: list[Any] = []

    def start(
        self, host: str, batches: int = BATCHES, pause_in: int | None = None
    ) -> tuple[Any, Any, Any]:
        paused, resume = FORK.Event(), FORK.Event()
        lock_dir = str(self.tmp_path / f"locks-{host}")
        args = (host, self.catalog_url, lock_dir, batches, self.go, pause_in, paused, resume)
        proc = FORK.Process(target=_host, args=args, daemon=True)
        proc.start()
        self.procs.append(proc)
        self.events += [paused, resume]  # kept for the life of the hosts
        return proc, paused, resume

    def join(self, proc: Any) -> int:
        proc.join(DEADLINE_S)
        assert not proc.is_alive(), "a writer did not finish within the deadline"
        return proc.exitcode

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.is_alive():
                proc.kill()
            proc.join(DEADLINE_S)


@pytest.fixture
def hosts_factory(tmp_path: Path) -> Iterator[Callable[[str], Hosts]]:
    made: list[Hosts] = []

    def make(catalog_url: str) -> Hosts:
        made.append(Hosts(catalog_url, tmp_path))
        return made[-1]

    yield make
    for h in made:
        h.stop_all()


def _another_machine(store: LakeStore, lock_root: Path) -> LakeStore:
    """In-process stand-in for a store on another host: its local file locks live in a
    directory of its own, so only the catalog (or the object store) can exclude it."""
    store.fs.lock = (
        lambda directory: locked(  # type: ignore[method-assign]
            lock_root / hashlib.sha256(str(directory).encode()).hexdigest()[:32]
        )
    )
    return store


def _wait_until(condition: Callable[[], bool], what: str) -> None:
    """Poll a condition another process makes true (bounded; not a fixed pause)."""
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


# ---------------------------------------------------------------- checks


def _expected_keys(plan: dict[str, range]) -> set[tuple[str, str]]:
    return {
        (r["symbol"], r["trade_date"])
        for host, batches in plan.items()
        for i in batches
        for r in _batch_rows(host, i)
    }


def _stored_keys(store: LakeStore) -> list[tuple[str, str]]:
    got = store.read_all("quotes")
    return sorted(zip(got["symbol"], (d.isoformat() for d in got["trade_date"]), strict=True))


def _assert_catalog_matches_objects(cat: Catalog, store: LakeStore) -> None:
    """Every partition file's record names its object's current rows and content hash."""
    records = {r.partition: r for r in cat.partition_files("quotes")}
    assert sorted(records) == ["2024", "2025"]
    for part in store.list_partitions("quotes"):
        data = store.fs.read_bytes(part.path)
        rec = records[part.value]
        assert rec.sha256 == hashlib.sha256(data).hexdigest(), part.value
        assert rec.rows == store.fs.parquet(part.path).metadata.num_rows
        assert rec.path == str(part.path)


# ---------------------------------------------------------------- PostgreSQL


def _pg_params() -> list[Any]:
    return [pytest.param("postgres", marks=pytest.mark.postgres)] if PG_URL or IN_CI else []


@pytest.fixture(params=_pg_params())
def pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh schema in the test PostgreSQL, as a catalog URL (search_path set)."""
    with fresh_pg_url() as url:
        if url is None:
            pytest.fail("CI=true but PITLAKE_TEST_PG_URL is not set (scripts/test.sh starts one)")
        yield url


def _advisory_waiters(url: str) -> int:
    engine = create_engine(resolve_url(url, None))
    try:
        with engine.connect() as conn:
            return int(
                conn.exec_driver_sql(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                ).scalar_one()
            )
    finally:
        engine.dispose()


def test_two_hosts_writing_overlapping_partitions_lose_no_row(
    s3: RequestLog,  # noqa: F811
    pg_url: str,
    hosts_factory: Callable[[str], Hosts],
) -> None:
    Catalog(pg_url).close()  # the tables, before two processes race to create them
    hosts = hosts_factory(pg_url)
    a, _, _ = hosts.start("a")
    b, _, _ = hosts.start("b")
    hosts.go.set()
    assert hosts.join(a) == 0 and hosts.join(b) == 0
    cat, store = Catalog(pg_url), LakeStore(URL)
    try:
        want = _expected_keys({"a": range(BATCHES), "b": range(BATCHES)})
        got = _stored_keys(store)
        assert len(got) == len(want) == 2 * BATCHES * 4  # no row twice
        assert set(got) == want  # and none lost
        _assert_catalog_matches_objects(cat, store)
    finally:
        cat.close()


def test_the_second_host_waits_for_the_hold_and_a_killed_holder_loses_nothing(
    s3: RequestLog,  # noqa: F811
    pg_url: str,
    hosts_factory: Callable[[str], Hosts],
) -> None:
    """Host a stops inside the 2024 partition's hold of its batch 2; host b's write of that
    partition waits on the advisory lock (pg_locks shows it) until a is SIGKILLed. Then b
    finishes: b's rows and a's committed batches are all there, a's killed batch is absent
    (nothing half-written), and the catalog records the objects as they are."""
    Catalog(pg_url).close()
    hosts = hosts_factory(pg_url)
    a, a_paused, _ = hosts.start("a", batches=4, pause_in=2)
    hosts.go.set()
    assert a_paused.wait(DEADLINE_S)
    b, _, _ = hosts.start("b", batches=3)
    _wait_until(lambda: _advisory_waiters(pg_url) >= 1, "host b to wait on the advisory lock")
    assert b.is_alive()  # b cannot write the partition a holds
    os.kill(a.pid, signal.SIGKILL)
    assert hosts.join(a) == -signal.SIGKILL
    assert hosts.join(b) == 0  # PostgreSQL released the dead session's lock
    cat, store = Catalog(pg_url), LakeStore(URL)
    try:
        assert set(_stored_keys(store)) == _expected_keys({"a": range(2), "b": range(3)})
        _assert_catalog_matches_objects(cat, store)
        assert _advisory_waiters(pg_url) == 0
    finally:
        cat.close()


def test_a_holder_whose_catalog_session_died_writes_nothing(
    s3: RequestLog,  # noqa: F811
    pg_url: str,
) -> None:
    """The lock lives in the writer's catalog session: once that session is gone (here
    terminated by the server), the writer's check before the PUT fails and nothing is written."""
    cat = Catalog(pg_url)
    store = LakeStore(URL, coordinator=coordinator_for(cat))
    assert isinstance(store.coordinator, AdvisoryLocks)
    write(store, "quotes", [bar("600519.SH", "2025-06-03", 10.0)])
    before = store.fs.read_bytes(store.partition_path("quotes", "2025"))
    merge = store._merge_into_partition

    def session_dies_then_merge(*args: Any, **kwargs: Any) -> Any:
        holding = kwargs["holding"]
        pid = holding.conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        admin = create_engine(resolve_url(pg_url, None))
        with admin.begin() as conn:
            conn.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
        admin.dispose()
        return merge(*args, **kwargs)

    store._merge_into_partition = session_dies_then_merge  # type: ignore[method-assign]
    try:
        with pytest.raises(LeaseLostError, match="quotes/2025") as err:
            write(store, "quotes", [bar("600519.SH", "2025-06-04", 11.0)])
        assert err.value.path == "quotes/2025"
        assert store.fs.read_bytes(store.partition_path("quotes", "2025")) == before
    finally:
        cat.close()


# ---------------------------------------------------------------- SQLite leases


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2025, 6, 20, 10, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def _no_wait(_seconds: float) -> None:
    raise AssertionError("the lease should have been free")


def test_a_stale_lease_holder_is_fenced_off(s3: RequestLog, tmp_path: Path) -> None:  # noqa: F811
    """Host a holds the 2025 partition, is paused past its lease's expiry, and host b takes
    the partition (token 2) and writes. When a resumes, its check refuses its write: the
    object and the catalog record stay b's, and a's stale merge would have dropped b's row."""
    url = f"sqlite:///{tmp_path}/catalog.db"
    clock = FakeClock()
    cat = Catalog(url)
    lease = {"ttl_s": 30.0, "clock": clock, "wait": _no_wait, "heartbeat": False}
    store_a = LakeStore(URL, coordinator=Leases(cat, holder="host-a", **lease))
    store_b = _another_machine(
        LakeStore(URL, coordinator=Leases(cat, holder="host-b", **lease)), tmp_path / "b"
    )
    write(store_a, "quotes", [bar("600519.SH", "2025-06-03", 10.0)])
    in_hold, resume = threading.Event(), threading.Event()
    merge = store_a._merge_into_partition

    def pause_then_merge(*args: Any, **kwargs: Any) -> Any:
        in_hold.set()
        assert resume.wait(DEADLINE_S)
        return merge(*args, **kwargs)

    store_a._merge_into_partition = pause_then_merge  # type: ignore[method-assign]
    failures: list[BaseException] = []

    def host_a() -> None:
        try:
            write(store_a, "quotes", [bar("600519.SH", "2025-06-04", 11.0)])
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=host_a)
    thread.start()
    try:
        assert in_hold.wait(DEADLINE_S)
        assert store_b.coordinator.try_acquire("quotes", "2025") is None  # a still holds it
        clock.advance(31)  # a is paused past its lease
        write(store_b, "quotes", [bar("000001.SZ", "2025-06-04", 5.0)])
        b_object = store_b.fs.read_bytes(store_b.partition_path("quotes", "2025"))
    finally:
        resume.set()
        thread.join(DEADLINE_S)
    assert len(failures) == 1 and isinstance(failures[0], LeaseLostError), failures
    assert "taken over" in str(failures[0]) and failures[0].path == "quotes/2025"
    assert store_b.fs.read_bytes(store_b.partition_path("quotes", "2025")) == b_object
    keys = _stored_keys(store_b)
    assert ("000001.SZ", "2025-06-04") in keys and ("600519.SH", "2025-06-04") not in keys
    _assert_one_partition_recorded(cat, store_b, "2025")
    tokens = _lease_tokens(cat)
    assert tokens["quotes/2025"] == 3  # a's first write, a's stale hold, b's takeover
    cat.close()


def _assert_one_partition_recorded(cat: Catalog, store: LakeStore, value: str) -> None:
    rec = {r.partition: r for r in cat.partition_files("quotes")}[value]
    data = store.fs.read_bytes(store.partition_path("quotes", value))
    assert rec.sha256 == hashlib.sha256(data).hexdigest()


def _lease_tokens(cat: Catalog) -> dict[str, int]:
    with cat.engine.connect() as conn:
        return {r.name: int(r.token) for r in conn.execute(partition_leases_table.select())}


def test_an_expired_holder_cannot_record_after_its_put(tmp_path: Path) -> None:
    """The record is fenced too: a holder whose lease lapsed between its write and its
    catalog record is refused the record (the token check and the upsert are one
    transaction), so the catalog never goes back to an older writer's file."""
    clock = FakeClock()
    cat = Catalog(f"sqlite:///{tmp_path}/catalog.db")
    a = Leases(cat, holder="host-a", ttl_s=30, clock=clock, wait=_no_wait, heartbeat=False)
    b = Leases(cat, holder="host-b", ttl_s=30, clock=clock, wait=_no_wait, heartbeat=False)
    with a.hold("quotes", "2025") as held_a:
        held_a.verify()
        clock.advance(31)
        with b.hold("quotes", "2025") as held_b:
            held_b.record_partition_file("quotes", "2025", "p", 2, "b" * 64, "run-b")
            with pytest.raises(LeaseLostError, match="taken over"):
                held_a.record_partition_file("quotes", "2025", "p", 1, "a" * 64, "run-a")
    [rec] = cat.partition_files("quotes")
    assert (rec.sha256, rec.rows, rec.run_id) == ("b" * 64, 2, "run-b")
    cat.close()


def test_an_expired_lease_is_refused_before_anyone_takes_it(tmp_path: Path) -> None:
    clock = FakeClock()
    cat = Catalog(f"sqlite:///{tmp_path}/catalog.db")
    a = Leases(cat, holder="host-a", ttl_s=30, clock=clock, wait=_no_wait, heartbeat=False)
    with pytest.raises(LeaseLostError, match="expired"), a.hold("quotes", "2025") as held:
        clock.advance(30)
        held.verify()
    cat.close()


def test_renewal_keeps_a_long_write_s_lease(tmp_path: Path) -> None:
    """A writer renewing (the heartbeat does, every third of the TTL) keeps the partition
    for as long as it writes; the other writer waits, then gets it once it is released."""
    clock = FakeClock()
    cat = Catalog(f"sqlite:///{tmp_path}/catalog.db")
    a = Leases(cat, holder="host-a", ttl_s=30, clock=clock, wait=_no_wait, heartbeat=False)
    b = Leases(cat, holder="host-b", ttl_s=30, clock=clock, wait=_no_wait, heartbeat=False)
    with a.hold("quotes", "2025") as held:
        for _ in range(5):  # 100 s of writing, renewed every 20 s
            clock.advance(20)
            held.renew()
            assert b.try_acquire("quotes", "2025") is None
        held.verify()
    got = b.try_acquire("quotes", "2025")
    assert got is not None and got.token == 2
    cat.close()


def test_the_heartbeat_renews_while_the_writer_is_busy(tmp_path: Path) -> None:
    clock = FakeClock()
    cat = Catalog(f"sqlite:///{tmp_path}/catalog.db")
    a = Leases(cat, holder="host-a", ttl_s=0.3, clock=clock, wait=_no_wait, heartbeat=True)
    t = partition_leases_table.c

    def expiry() -> datetime:
        with cat.engine.connect() as conn:
            q = partition_leases_table.select().where(t.name == "quotes/2025")
            return conn.execute(q).one().expires_at

    with a.hold("quotes", "2025"):
        first = expiry()
        clock.advance(0.2)  # the next beat (0.1 s of real time) renews from the new "now"
        _wait_until(lambda: expiry() > first, "the heartbeat to renew the lease")
    cat.close()


def test_a_killed_sqlite_holder_s_lease_expires_and_the_next_writer_proceeds(
    s3: RequestLog,  # noqa: F811
    tmp_path: Path,
    hosts_factory: Callable[[str], Hosts],
) -> None:
    """A real process holding the 2024 lease is SIGKILLed mid-write. Its lease has not expired,
    but its holder is provably dead on this host, so another writer takes it at once (issue
    32 item 5); the next writer then takes it with a higher token and writes: nothing of the
    killed batch is there, every committed row is."""
    url = f"sqlite:///{tmp_path}/catalog.db"
    Catalog(url).close()
    hosts = hosts_factory(url)
    a, a_paused, _ = hosts.start("a", batches=3, pause_in=1)
    hosts.go.set()
    assert a_paused.wait(DEADLINE_S)
    os.kill(a.pid, signal.SIGKILL)
    assert hosts.join(a) == -signal.SIGKILL
    cat = Catalog(url)
    try:
        now = datetime.now(timezone.utc)
        live = Leases(cat, holder="host-b", clock=lambda: now, wait=_no_wait, heartbeat=False)
        taken = live.try_acquire("quotes", "2024")  # not expired, but its holder is dead
        assert taken is not None
        taken.release()
        later = now + timedelta(seconds=live.ttl_s + 1)
        b = LakeStore(
            URL,
            coordinator=Leases(cat, holder="host-b", clock=lambda: later, heartbeat=False),
        )
        write(b, "quotes", _batch_rows("b", 0), run_id="b-0")
        assert _lease_tokens(cat)["quotes/2024"] == 4  # a's two holds, the takeover, b's
        assert set(_stored_keys(b)) == _expected_keys({"a": range(1), "b": range(1)})
        _assert_catalog_matches_objects(cat, b)
    finally:
        cat.close()


# ---------------------------------------------------------------- the object store's own check


def test_a_put_built_on_a_stale_read_is_refused_by_the_store(
    s3: RequestLog,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Even an uncoordinated writer cannot overwrite rows it never read: each partition PUT
    is conditional on the object read (If-Match), and the store redoes the read-merge-write."""
    store = LakeStore(URL)
    write(store, "quotes", [bar("600519.SH", "2025-06-03", 10.0)])
    other = _another_machine(LakeStore(URL), tmp_path / "other")
    real_put = store._put
    calls = {"n": 0}

    def another_writer_first(path: Any, data: bytes, **kwargs: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 1:  # between our read and our PUT, someone else writes
            write(other, "quotes", [bar("000001.SZ", "2025-06-03", 5.0)])
        real_put(path, data, **kwargs)

    store._put = another_writer_first  # type: ignore[method-assign]
    res = write(store, "quotes", [bar("600519.SH", "2025-06-04", 11.0)])
    assert calls["n"] == 2 and res.written == ["2025"]  # refused once, redone once
    assert set(_stored_keys(store)) == {
        ("600519.SH", "2025-06-03"),
        ("600519.SH", "2025-06-04"),
        ("000001.SZ", "2025-06-03"),
    }
    with pytest.raises(ObjectChangedError):  # a new partition: If-None-Match
        store.fs.put(store.partition_path("quotes", "2025"), b"x", expect=None)


# ---------------------------------------------------------------- reads create nothing


def test_only_writers_create_the_lease_table(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/catalog.db"
    cat = Catalog(url)
    cat.partition_files()
    assert "partition_leases" not in inspect(cat.engine).get_table_names()
    coordinator_for(cat)
    assert "partition_leases" in inspect(cat.engine).get_table_names()
    cat.close()


def test_conditional_puts_can_be_turned_off_for_a_store_without_them(
    s3: RequestLog,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PITLAKE_S3_CONDITIONAL_PUT=0 sends plain PUTs (for a store that rejects If-Match):
    then only the catalog's holds protect the partition, as this uncoordinated stale read
    shows by dropping the other writer's row."""
    monkeypatch.setenv("PITLAKE_S3_CONDITIONAL_PUT", "0")
    store = LakeStore(URL)
    write(store, "quotes", [bar("600519.SH", "2025-06-03", 10.0)])
    other = _another_machine(LakeStore(URL), tmp_path / "other")
    real_put = store._put

    def another_writer_first(path: Any, data: bytes, **kwargs: Any) -> None:
        write(other, "quotes", [bar("000001.SZ", "2025-06-03", 5.0)])
        real_put(path, data, **kwargs)

    store._put = another_writer_first  # type: ignore[method-assign]
    write(store, "quotes", [bar("600519.SH", "2025-06-04", 11.0)])
    assert ("000001.SZ", "2025-06-03") not in set(_stored_keys(store))


def test_a_partition_locked_by_another_session_times_out_as_busy(pg_url: str) -> None:
    cat = Catalog(pg_url)
    try:
        first, second = AdvisoryLocks(cat), AdvisoryLocks(cat, wait_s=0.001)
        with first.hold("quotes", "2025") as held:
            held.verify()
            with pytest.raises(PartitionBusyError, match="quotes/2025"):
                with second.hold("quotes", "2025"):
                    pass  # pragma: no cover - never reached
            with second.hold("quotes", "2024") as other:  # another partition is free
                other.verify()
        with second.hold("quotes", "2025") as now_free:
            now_free.verify()
    finally:
        cat.close()


# ---------------------------------------------------------------- two ingest hosts, end to end

WINDOW = (date(2025, 6, 2), date(2025, 6, 6))
SAMPLE_DAILY = Path(__file__).resolve().parents[2] / "sample" / "tushare" / "daily.jsonl"


def _sample_daily_keys() -> list[tuple[str, str]]:
    """(symbol, session) of every bar the sample holds in the window: what one host
    ingesting every symbol stores (the sample's bars all pass the quotes gate)."""
    lo, hi = (d.strftime("%Y%m%d") for d in WINDOW)
    with open(SAMPLE_DAILY, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return sorted(
        (r["ts_code"], f"{r['trade_date'][:4]}-{r['trade_date'][4:6]}-{r['trade_date'][6:]}")
        for r in rows
        if lo <= r["trade_date"] <= hi
    )


def _ingest(lake: str, catalog_url: str, symbols: tuple[str, ...]) -> None:
    """What one ingest host runs: the quotes backfill of the window for its symbols, one
    store write per session (group=1), through RunEnv as `pitlake ingest` does."""
    from pitlake.pipeline.backfill import backfill_chunk
    from pitlake.pipeline.planning import chunks_for
    from pitlake.pipeline.resources import RunEnv, new_run_id

    env = RunEnv(
        lake, source="replay:sample", run_id=new_run_id("backfill"), catalog_url=catalog_url
    )
    try:
        for lo, hi in chunks_for("quotes", *WINDOW):
            backfill_chunk(env, "quotes", lo, hi, symbols, group=1)
    finally:
        env.close()


def _ingest_host(
    catalog_url: str, lock_dir: str, symbols: tuple[str, ...], go: Any, me: int, arrived: Any
) -> None:
    """One ingest host. Its first partition read waits (bounded) until the other host has
    come to the same write (reached its local lock): so the two first writes overlap for
    sure, which otherwise depends on timing (each host spends most of a unit in the gate)."""
    os.environ["PITLAKE_LOCK_DIR"] = lock_dir
    lock, read = ObjectFS.lock, LakeStore._read_stored
    first = {"read": True}

    def lock_announcing(self: ObjectFS, directory: Any) -> Any:
        arrived[me].set()
        return lock(self, directory)

    def read_then_meet(self: LakeStore, *args: Any, **kwargs: Any) -> Any:
        out = read(self, *args, **kwargs)
        if first["read"]:
            first["read"] = False
            arrived[1 - me].wait(DEADLINE_S)
        return out

    ObjectFS.lock = lock_announcing  # type: ignore[method-assign]
    LakeStore._read_stored = read_then_meet  # type: ignore[method-assign]
    go.wait()
    _ingest(URL, catalog_url, symbols)


def test_two_ingest_hosts_splitting_the_market_write_what_one_host_would(
    s3: RequestLog,  # noqa: F811
    pg_url: str,
    tmp_path: Path,
) -> None:
    """Hosts a and b each ingest half of the sample's symbols for the same sessions, at the
    same time, into the same year partition: the lake holds exactly the rows one host
    ingesting every symbol writes, and the catalog records the objects as they are."""
    want = _sample_daily_keys()
    symbols = sorted({s for s, _ in want})
    halves = (tuple(symbols[::2]), tuple(symbols[1::2]))
    Catalog(pg_url).close()
    import pitlake.expectations.context

    import pitlake.pipeline.backfill  # noqa: F401

    go, arrived = FORK.Event(), (FORK.Event(), FORK.Event())
    procs = [
        FORK.Process(
            target=_ingest_host,
            args=(pg_url, str(tmp_path / f"locks-{i}"), half, go, i, arrived),
            daemon=True,
        )
        for i, half in enumerate(halves)
    ]
    for p in procs:
        p.start()
    try:
        go.set()
        for p in procs:
            p.join(DEADLINE_S)
            assert p.exitcode == 0
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
    store = LakeStore(URL)
    # the issuers listed on each session × the sessions (the sample's stock_basic decides)
    days = sorted({d for _, d in want})
    assert len(want) == sum(listed_on(SAMPLE_DAILY.parents[1], d) for d in days)
    assert _stored_keys(store) == want
    cat = Catalog(pg_url)
    try:
        [rec] = cat.partition_files("quotes")
        data = store.fs.read_bytes(store.partition_path("quotes", "2025"))
        assert rec.sha256 == hashlib.sha256(data).hexdigest()
        assert rec.rows == len(want)
    finally:
        cat.close()
