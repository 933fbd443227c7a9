"""Temp files left by killed writers are swept; a live writer's never are."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pitlake.lake import tempfiles
from pitlake.lake.parquet import atomic_write_bytes
from pitlake.lake.store import LakeStore
from pitlake.lake.tempfiles import _host, is_orphan, temp_path_for
from pitlake.pipeline.resources import RunEnv

DAY = 24 * 3600


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _touch(path: Path, *, age_s: float = 0.0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"partial")
    if age_s:
        then = time.time() - age_s
        os.utime(path, (then, then))
    return path


def test_the_temp_name_names_its_writer_and_stays_hidden(tmp_path: Path) -> None:
    temp = temp_path_for(tmp_path / "seq-1.parquet")
    assert temp.name.startswith(".seq-1.parquet.") and temp.name.endswith(".tmp")
    assert tempfiles._writer(temp) == (_host(), os.getpid())


def test_only_orphans_are_swept(tmp_path: Path) -> None:
    store = LakeStore(tmp_path)
    raw = tmp_path / "raw" / "tushare" / "daily" / "fetch_date=2025-06-03"
    host = _host()
    dead = _touch(raw / f".run-1-3.parquet.{host}~{_dead_pid()}.abc.tmp")
    mine = _touch(temp_path_for(raw / "run-1-4.parquet"))  # this process: a live writer
    parent = _touch(raw / f".run-1-5.parquet.{host}~{os.getppid()}.abc.tmp")  # alive
    foreign_new = _touch(tmp_path / "dq" / "results" / "quotes" / ".r.json.other~1.abc.tmp")
    foreign_old = _touch(
        tmp_path / "dq" / "results" / "quotes" / ".s.json.other~1.abc.tmp", age_s=2 * DAY
    )
    legacy_new = _touch(tmp_path / "curated" / "quotes" / "year=2025" / ".part.parquet.abc.tmp")
    legacy_old = _touch(tmp_path / "quarantine" / "quotes" / ".x.parquet.abc.tmp", age_s=2 * DAY)
    data = _touch(raw / "run-1-3.parquet")
    assert store.sweep_orphans() == 3
    assert not dead.exists() and not foreign_old.exists() and not legacy_old.exists()
    for kept in (mine, parent, foreign_new, legacy_new, data):
        assert kept.exists(), kept


def test_a_file_renamed_away_meanwhile_is_not_an_orphan(tmp_path: Path) -> None:
    assert not is_orphan(tmp_path / f".gone.parquet.{_host()}~1.abc.tmp")


def test_a_writer_killed_before_its_rename_leaves_a_temp_file_the_next_run_removes(
    tmp_path: Path,
) -> None:
    target = tmp_path / "raw" / "tushare" / "daily" / "fetch_date=2025-06-03" / "run-9-1.parquet"
    pid = os.fork()
    if pid == 0:  # the writer: killed after the fsync, before the rename publishes the file
        import pitlake.lake.parquet as parquet_module

        def die(tmp: Path, final: Path) -> None:
            os.kill(os.getpid(), signal.SIGKILL)

        parquet_module._publish = die  # type: ignore[assignment]
        atomic_write_bytes(target, b"answer")
        os._exit(0)  # not reached
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    left = list(target.parent.glob(".*.tmp"))
    assert len(left) == 1 and not target.exists()
    env = RunEnv(tmp_path, source=None, run_id="next-run", capture_raw=False)
    env.close()
    assert list(target.parent.glob(".*.tmp")) == []
