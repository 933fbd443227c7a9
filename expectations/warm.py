"""Build the gate before the first batch needs it.

Importing Great Expectations and building the process's context and suites costs ~3-5 s of
CPU (`pitlake.expectations.context`). Built at the first gate, that time is added to a run's
wall while the vendor's quota sits idle; built on a thread when the run opens, it overlaps the
first calls, which are mostly waiting on the vendor and its quota (decision 62).

The thread is a daemon: a run that ends without a gate (a non-session date, a failed fetch)
exits without waiting for it. A fork waits for it: a child forked while it imports would
inherit the import locks it holds and could deadlock on its first import of the same modules.
"""

from __future__ import annotations

import logging
import os
import threading

log = logging.getLogger(__name__)

_guard = threading.Lock()
_thread: threading.Thread | None = None


def warm_up() -> None:
    """Start building the gate on a background thread (once per process; a no-op after)."""
    global _thread
    with _guard:
        if _thread is not None:
            return
        _thread = threading.Thread(target=_build, name="pitlake-gate-warm-up", daemon=True)
        _thread.start()


def ready() -> None:
    """Wait for the warm-up, if one started. Call it before importing anything that imports
    GX: two threads importing GX's circular modules at once can each find the other's half
    initialised ("cannot import name … from partially initialized module")."""
    thread = _thread
    if thread is not None and thread is not threading.current_thread():
        thread.join()


def _build() -> None:
    try:
        from pitlake.expectations.context import state

        state()
    except Exception:  # the first gate builds it again and its run reports the error
        log.debug("building the gate ahead failed; the first gate will", exc_info=True)


os.register_at_fork(before=ready)
