"""CLI commands, one module each; `register(app)` adds a module's commands to the app."""

from __future__ import annotations

import errno
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

# Width of tables printed to a pipe or file: rich would assume 80 columns and fold every cell
# of a quotes table into slivers; a log or `| less -S` reads one long line per row better.
PIPE_WIDTH = 240


def console() -> Console:
    """The console readable output goes to: the terminal's width, or PIPE_WIDTH (or
    $COLUMNS) when stdout is not a terminal. A reader closing the pipe early (`| head`) is
    left to the CLI's one handler (pitlake.cli: quiet, exit 141); rich's own would exit 1."""
    from rich.console import Console

    class _PipedConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True  # drop what is still buffered
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    if sys.stdout.isatty() or os.environ.get("COLUMNS", "").strip():
        return _PipedConsole(soft_wrap=False)
    return _PipedConsole(soft_wrap=False, width=PIPE_WIDTH)
