"""Whether a RUNNING run still runs (issue 32 item 3, decision 40).

A SIGKILLed ingest never records its end, so its row says RUNNING for good. The run's process
records who it is (`holder`, host~pid~… as a lease holder) and beats every HEARTBEAT_S
(`alive_at`); a reader then shows a RUNNING run as ABANDONED when its process is provably gone
on this host (`lease.holder_is_dead`) or its last heartbeat is older than ABANDONED_AFTER —
with when it was last alive. Nothing is rewritten: the row keeps what the run recorded. A
run recorded without a holder (before this existed) never beat and is shown as recorded."""

from __future__ import annotations

import os
import socket
import threading
import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from pitlake.lake.catalog_values import Run
from pitlake.lake.lease import holder_is_dead

HEARTBEAT_S = 30.0
ABANDONED_AFTER = timedelta(minutes=5)  # ten missed heartbeats
RUNNING, ABANDONED = "RUNNING", "ABANDONED"


def this_process() -> str:
    """The holder string of this process (the lease's form: host~pid~suffix)."""
    return f"{socket.gethostname()}~{os.getpid()}~{uuid.uuid4().hex[:8]}"


def shown_status(run: Run, at: datetime | None = None) -> str:
    """The run's status as a reader shows it at `at` (None: now, when a dead pid on this
    host also counts): ABANDONED for a RUNNING run whose process is gone."""
    if run.status != RUNNING or not run.holder:
        return run.status  # a run recorded without a holder never beat: nothing to judge by
    if at is None and holder_is_dead(run.holder):
        return ABANDONED
    last = run.alive_at or run.started_at
    when = at or datetime.now(timezone.utc)
    if last is not None and when - last > ABANDONED_AFTER:
        return ABANDONED
    return RUNNING


@dataclass(frozen=True)
class RunAsOf:
    """A run as a reader at a cutoff sees it: `run` as it stood then (one that ended after the
    cutoff is RUNNING, without its end or summary), its shown status, and for an ABANDONED
    one when it was last alive (by the cutoff)."""

    run: Run
    status: str
    last_alive: datetime | None


def as_of(run: Run, cutoff: datetime, *, current: bool = False) -> RunAsOf | None:
    """The run as it stood at `cutoff`; None for a run started after it (not known then).
    `current`: the cutoff is now, so a dead pid on this host counts too (a past cutoff is
    judged by the heartbeats before it alone)."""
    if run.started_at > cutoff:
        return None
    if run.ended_at is not None and run.ended_at > cutoff:
        run = replace(run, status=RUNNING, ended_at=None, summary=None)
    if run.alive_at is not None and run.alive_at > cutoff:
        run = replace(run, alive_at=cutoff)  # it was alive at the cutoff: no later beat shown
    status = shown_status(run, None if current else cutoff)
    return RunAsOf(run, status, run.alive_at if status == ABANDONED else None)


class Heartbeat:
    """Marks one run alive every HEARTBEAT_S from a daemon thread until stopped (it dies with
    its process, which is the point). A failed beat is retried at the next one."""

    def __init__(self, catalog: Any, run_id: str, every: float = HEARTBEAT_S) -> None:
        self.catalog, self.run_id, self.every = catalog, run_id, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="pitlake-heartbeat", daemon=True)

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.catalog.mark_alive(self.run_id)
            except Exception:  # a busy or unreachable catalog: the next beat tries again
                continue


_BEATING: dict[str, Heartbeat] = {}
_LOCK = threading.Lock()


def start_heartbeat(catalog: Any, run_id: str) -> None:
    with _LOCK:
        if run_id not in _BEATING:
            _BEATING[run_id] = Heartbeat(catalog, run_id).start()


def stop_heartbeat(run_id: str) -> None:
    with _LOCK:
        beat = _BEATING.pop(run_id, None)
    if beat is not None:
        beat.stop()
