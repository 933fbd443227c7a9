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
from typing import Any

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


# A writer of two news months (a dataset-wide write: news is partitioned by the month it was
# known) through a lease coordinator, SIGKILLed right after recording the first month.
WRITE_NEWS = """
import sys
from pitlake.lake.catalog import Catalog
from pitlake.lake.lease import Leases
from pitlake.lake.store import LakeStore
from tests.lake.conftest import write
from tests.lake.test_dead_holder import two_months_of_news
cat = Catalog(lake_root=sys.argv[1])
write(LakeStore(sys.argv[1], coordinator=Leases(cat, ttl_s=600)), "news", two_months_of_news())
"""


def two_months_of_news() -> Any:
    from tests.lake.conftest import bj, news_frame, news_item

    return news_frame(
        [
            news_item("n-may", "May item", bj("2025-05-20", "10:00"), ["600519.SH"]),
            news_item("n-jun", "June item", bj("2025-06-03", "10:00"), ["600519.SH"]),
        ]
    )


def test_a_rerun_that_adds_nothing_to_a_killed_partition_leaves_its_lease_to_the_next_start(
    tmp_path: Path,
) -> None:
    """The kill the issue saw (`announcements/month=2025-05`): the rerun takes over the
    dataset-wide lease at once but never the killed month's, where it adds no rows, so that
    row kept naming the dead writer; the next run's start releases it."""
    from sqlalchemy import select

    from pitlake.lake.lease import partition_leases_table
    from pitlake.lake.store import LakeStore
    from pitlake.pipeline.resources import RunEnv
    from tests.lake.conftest import write

    env = {**os.environ, "PITLAKE_KILL_AT": "after_record", "PITLAKE_KILL_NTH": "1"}
    env.pop("PITLAKE_CATALOG_URL", None)
    killed = subprocess.run(
        [sys.executable, "-c", WRITE_NEWS, str(tmp_path)],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]

    def holders() -> dict[str, str | None]:
        with Catalog(lake_root=tmp_path) as cat, cat.engine.connect() as conn:
            return {r.name: r.holder for r in conn.execute(select(partition_leases_table))}

    dead = holders()["news/2025-05"]
    assert dead is not None and holder_is_dead(dead)
    with Catalog(lake_root=tmp_path) as cat:  # the rerun's write: completes at once
        t0 = time.monotonic()
        write(LakeStore(tmp_path, coordinator=Leases(cat, ttl_s=600)), "news", two_months_of_news())
        assert time.monotonic() - t0 < 30
    after_rerun = holders()
    assert after_rerun["news/*"] is None and after_rerun["news/2025-06"] is None
    assert after_rerun["news/2025-05"] == dead  # the month it added nothing to
    RunEnv(tmp_path, source="replay:sample", run_id="next").close()
    assert holders()["news/2025-05"] is None
