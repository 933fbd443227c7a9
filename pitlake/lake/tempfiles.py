"""Temp files of atomic writes, and the sweep of those a killed writer left behind.

Every local write goes temp file → fsync → rename (`pitlake.lake.parquet.atomic_write_bytes`).
A writer killed between the fsync and the rename leaves its temp file. A partition's temp files
are swept when the partition is next rewritten (under its lock), but raw answers and data-quality
files are written once under names no later run reuses, so their orphans would stay for good.
The temp name therefore carries its writer (host and pid); `sweep_orphans` removes the temp
files whose writer is gone: on this host, a pid that no longer runs; on another host (a shared
disk), files older than a day. A live writer's temp file is never touched."""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from pathlib import Path

log = logging.getLogger(__name__)

SUFFIX = ".tmp"
FOREIGN_MAX_AGE_S = 24 * 3600.0  # orphans of writers on other hosts (shared disk)
_SEP = "~"  # between the writer's host and pid; not used in lake file names


def _host() -> str:
    return socket.gethostname().replace(".", "_").replace(_SEP, "_") or "host"


def temp_path_for(path: Path) -> Path:
    """`.<name>.<host>~<pid>.<uuid>.tmp` beside `path` (hidden: no reader globs it)."""
    return path.parent / f".{path.name}.{_host()}{_SEP}{os.getpid()}.{uuid.uuid4().hex}{SUFFIX}"


def _writer(temp: Path) -> tuple[str, int] | None:
    """(host, pid) from a temp file's name; None for names from before the writer was kept."""
    parts = temp.name[: -len(SUFFIX)].split(".")
    if len(parts) < 3 or _SEP not in parts[-2]:
        return None
    host, _, pid = parts[-2].rpartition(_SEP)
    return (host, int(pid)) if pid.isdigit() else None


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def is_orphan(temp: Path, *, now: float | None = None) -> bool:
    writer = _writer(temp)
    try:
        age = (now or time.time()) - temp.stat().st_mtime
    except FileNotFoundError:
        return False  # its writer just renamed or removed it
    if writer is None or writer[0] != _host():
        return age > FOREIGN_MAX_AGE_S
    return writer[1] != os.getpid() and not _running(writer[1])


def sweep_orphans(root: Path, zones: tuple[str, ...]) -> int:
    """Remove orphaned temp files under the given zones of a local lake; returns how many."""
    removed = 0
    for zone in zones:
        base = root / zone
        if not base.is_dir():
            continue
        for temp in base.rglob(f".*{SUFFIX}"):
            if temp.is_file() and is_orphan(temp):
                temp.unlink(missing_ok=True)
                removed += 1
    if removed:
        log.warning("removed %d temp file(s) left by killed writers under %s", removed, root)
    return removed
