"""How long a rerun takes after `pitlake ingest` is SIGKILLed (issue 32), as a user runs it:
the real command, Prefect's ephemeral mode, the bundled sample. One clean ingest of the range
for reference, then per kill point a killed ingest (PITLAKE_KILL_AT / PITLAKE_KILL_NTH) and
its rerun into the same lake, one process at a time.

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_kill_rerun [--out DIR]

A SIGKILLed ingest leaves its ephemeral Prefect server running (a child it can no longer
stop): each ingest runs in its own session and that session is killed after it."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pitlake.lake.killpoints import ENV, ENV_NTH

START, END = "2025-06-02", "2025-06-06"
POINTS = {"after_fetch": 23, "after_gate": 7, "after_rename": 8, "after_record": 8}


def ingest(lake: Path, **extra: str) -> tuple[int, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PITLAKE_")}
    env.update(extra)
    cmd = [sys.executable, "-m", "pitlake.cli", "ingest", "--source", "replay:sample"]
    cmd += ["--start", START, "--end", END, "--lake", str(lake), "--json"]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        rc = proc.wait(timeout=600)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # an orphaned ephemeral Prefect server
        except ProcessLookupError:
            pass
    return rc, time.monotonic() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="keep the lakes here")
    args = parser.parse_args()
    root = args.out or Path(tempfile.mkdtemp(prefix="kill-rerun-"))
    rows = []
    rc, clean_s = ingest(root / "clean")
    print(f"clean ingest: exit {rc}, {clean_s:.1f} s", flush=True)
    for point, nth in POINTS.items():
        lake = root / point
        killed_rc, killed_s = ingest(lake, **{ENV: point, ENV_NTH: str(nth)})
        rerun_rc, rerun_s = ingest(lake)
        rows.append(
            {"point": point, "nth": nth, "killed_exit": killed_rc, "killed_s": killed_s}
            | {"rerun_exit": rerun_rc, "rerun_s": rerun_s}
        )
        print(
            f"{point} #{nth}: killed exit {killed_rc} after {killed_s:.1f} s, "
            f"rerun exit {rerun_rc} in {rerun_s:.1f} s",
            flush=True,
        )
    print(json.dumps({"clean_s": clean_s, "points": rows}))


if __name__ == "__main__":
    main()
