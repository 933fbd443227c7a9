"""A run whose process died is shown ABANDONED, not RUNNING for good (issue 32 item 3): its
process recorded who it is and beat; a reader sees the pid gone on this host, or the beat
older than ABANDONED_AFTER, on the catalog, the CLI and the dashboard."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from typer.testing import CliRunner

from pitlake.cli import app
from pitlake.lake.catalog import Catalog
from pitlake.lake.run_liveness import ABANDONED_AFTER, Heartbeat, shown_status, this_process
from pitlake.serve.dashboard.history import runs as dashboard_runs

REPO = Path(__file__).resolve().parents[2]

# A process that records its run as the ingest's start_run does, then waits to be killed.
CHILD = """
import sys, time
from pitlake.lake.catalog import Catalog
from pitlake.lake.run_liveness import this_process
Catalog(lake_root=sys.argv[1]).start_run("killed", "backfill", {}, holder=this_process())
print("started", flush=True)
time.sleep(600)
"""


def _killed_run(lake_root: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(lake_root)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k != "PITLAKE_CATALOG_URL"},
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"started"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def test_a_killed_run_is_abandoned_everywhere(lake_root: Path) -> None:
    _killed_run(lake_root)
    with Catalog(lake_root=lake_root) as cat:
        cat.start_run("alive", "nightly", {}, holder=this_process())  # this process: alive
        by_id = {r.run_id: r for r in cat.runs()}
        assert by_id["killed"].status == "RUNNING"  # the row keeps what was recorded
        assert shown_status(by_id["killed"]) == "ABANDONED"
        assert shown_status(by_id["alive"]) == "RUNNING"
        now = datetime.now(timezone.utc)
        shown = {r["run_id"]: r for r in dashboard_runs(cat, now, current=True)}
        assert shown["killed"]["status"] == "ABANDONED" and shown["killed"]["last_alive"]
        assert shown["killed"]["duration"] == "abandoned"
        assert shown["alive"]["status"] == "RUNNING" and shown["alive"]["last_alive"] is None
    out = CliRunner().invoke(app, ["runs", "--lake", str(lake_root), "--json"])
    assert out.exit_code == 0, out.output
    cli = {r["run_id"]: r for r in map(json.loads, out.output.splitlines())}
    assert cli["killed"]["status"] == "ABANDONED" and cli["killed"]["recorded_status"] == "RUNNING"
    assert cli["killed"]["last_alive"] is not None and "holder" not in cli["killed"]
    assert cli["alive"]["status"] == "RUNNING"


def test_another_hosts_run_is_abandoned_once_its_heartbeat_is_old(lake_root: Path) -> None:
    with Catalog(lake_root=lake_root) as cat:
        started = datetime.now(timezone.utc) - 2 * ABANDONED_AFTER
        cat.start_run("remote", "backfill", {}, started, holder="elsewhere~4242~abcd")
        (run,) = cat.runs()
        assert shown_status(run) == "ABANDONED"  # its last beat is 10 min old
        beat = Heartbeat(cat, "remote", every=0.05).start()
        try:
            time.sleep(0.3)
        finally:
            beat.stop()
        (run,) = cat.runs()
        assert shown_status(run) == "RUNNING"  # beating again
        assert datetime.now(timezone.utc) - run.alive_at < timedelta(seconds=5)
        # as of a past instant the run is judged by the beats before it
        assert shown_status(run, started + timedelta(minutes=1)) == "RUNNING"
        cat.finish_run("remote", "COMPLETED")
        (done,) = cat.runs()
        assert shown_status(done) == "COMPLETED"
