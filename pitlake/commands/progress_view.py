"""How `pitlake ingest` shows a run's progress (`pitlake.progress` counters).

On a terminal: a bar over the run's chunks, whose total is known before it starts, with the
units done and the last chunk finished. Without one (a cron job, CI, a pipe): one line every
PITLAKE_PROGRESS_INTERVAL seconds (default 10) — chunks done/total, units, elapsed — so a long
ingest is never silent. `--json` shows neither: stdout is the summary and stderr stays quiet."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

from pitlake import progress

INTERVAL_ENV = "PITLAKE_PROGRESS_INTERVAL"
DEFAULT_INTERVAL = 10.0
TTY_REFRESH = 0.25


def line(c: progress.Counts, elapsed: float, title: str) -> str:
    """One progress line: what a log shows every interval."""
    chunks = f"{c.chunks_done}/{c.chunks_total} chunks" if c.chunks_total else "planning"
    units = f"{c.units_done}/{c.units_planned} units" if c.units_planned else "0 units"
    last = f", last {c.last}" if c.last else ""
    return f"{title}: {chunks}, {units}, {elapsed:.0f} s elapsed{last}"


def _interval() -> float:
    try:
        return max(0.05, float(os.environ.get(INTERVAL_ENV, DEFAULT_INTERVAL)))
    except ValueError:
        return DEFAULT_INTERVAL


class ProgressView:
    """`with ProgressView(mode, title):` around a run; mode is "bar", "lines" or "off"."""

    def __init__(self, mode: str, title: str) -> None:
        self.mode, self.title = mode, title
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()

    @staticmethod
    def mode_for(as_json: bool) -> str:
        if as_json:
            return "off"
        return "bar" if sys.stderr.isatty() else "lines"

    def __enter__(self) -> ProgressView:
        if self.mode == "off":
            return self
        progress.listen()
        target = self._bar if self.mode == "bar" else self._lines
        self._thread = threading.Thread(target=target, name="pitlake-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join(5)
        progress.stop()

    def _lines(self) -> None:
        while not self._stop.wait(_interval()):
            c = progress.snapshot()
            if c is not None:
                elapsed = time.monotonic() - self._started
                print(line(c, elapsed, self.title), file=sys.stderr, flush=True)

    def _bar(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        bar = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            "{task.fields[units]}",
            TimeElapsedColumn(),
            transient=True,
        )
        task: Any = None
        with bar:
            while not self._stop.wait(TTY_REFRESH):
                c = progress.snapshot()
                if c is None or not c.chunks_total:
                    continue  # the bar starts once its total is known, never at 0/0
                units = f"{c.units_done}/{c.units_planned} units"
                if task is None:
                    task = bar.add_task(self.title, total=c.chunks_total, units=units)
                bar.update(task, completed=c.chunks_done, total=c.chunks_total, units=units)
