"""A lease whose holder is provably dead on this host (same hostname, pid gone) is taken over
at once, not after the TTL (issue 32 item 5, decision 38). A real subprocess takes the lease
and is SIGKILLed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pitlake.lake.catalog import Catalog
from pitlake.lake.lease import Leases, holder_is_dead

HOLD = """
import sys, time
from pitlake.lake.catalog import Catalog
from pitlake.lake.lease import Leases
leases = Leases(Catalog(lake_root=sys.argv[1]), ttl_s=600, heartbeat=False)
holding = leases.acquire("quotes", "year=2025")
print("held", flush=True)
time.sleep(600)
"""


def test_a_killed_holder_s_lease_is_taken_over_at_once(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        with Catalog(lake_root=tmp_path) as cat:
            other = Leases(cat, ttl_s=600, wait_s=0, heartbeat=False)
            assert other.try_acquire("quotes", "year=2025") is None  # alive: still held
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            t0 = time.monotonic()
            got = other.try_acquire("quotes", "year=2025")
            assert got is not None, "a dead holder's lease waited for its 600 s TTL"
            assert got.token == 2 and time.monotonic() - t0 < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_only_a_holder_provably_dead_on_this_host_is_dead() -> None:
    import socket

    assert not holder_is_dead(f"{socket.gethostname()}~{os.getpid()}~abc")  # ourselves
    assert not holder_is_dead(f"another-host-{os.getpid()}~999999999~abc")
    assert not holder_is_dead("host-a")  # a name without a pid
    assert holder_is_dead(f"{socket.gethostname()}~999999999~abc")  # no such pid


def test_a_run_starting_releases_the_lease_rows_of_dead_holders(tmp_path: Path) -> None:
    """A writer killed inside a partition hold leaves its row naming it as holder; a rerun
    that does not write that partition (a dataset-wide write adding no rows there) would
    never take it over. The next run's start releases it, keeping its token; a live
    holder's row (ours) and another host's stay held."""
    import socket

    from sqlalchemy import select

    from pitlake.lake.lease import partition_leases_table
    from pitlake.pipeline.resources import RunEnv

    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    elsewhere = f"not-{socket.gethostname()}~{proc.pid}~abcd"
    with Catalog(lake_root=tmp_path) as cat:
        ours = Leases(cat, ttl_s=600, heartbeat=False)
        ours.acquire("quotes", "year=2024")
        Leases(cat, ttl_s=600, heartbeat=False, holder=elsewhere).acquire("news", "month=2025-06")
    env = RunEnv(tmp_path, source="replay:sample", run_id="rerun")
    try:
        with env.catalog.engine.connect() as conn:
            rows = conn.execute(select(partition_leases_table)).all()
    finally:
        env.close()
    held = {r.name: (r.holder, r.token) for r in rows}
    assert held["quotes/year=2025"] == (None, 1)  # the dead holder's: released, token kept
    assert held["quotes/year=2024"] == (ours.holder, 1)
    assert held["news/month=2025-06"] == (elsewhere, 1)
