"""What the CLI prints when a command fails: one line naming what and where, a documented exit
code, and the traceback kept out of the way (issue 13 item 5).

A failure a user can fix (a path, a permission, a full disk, a catalog URL, a missing token, no
network) is one line on stderr. The traceback goes to a log file for the commands that write
(`<lake>/logs/`, else `~/.cache/pitlake/logs/` when the lake itself cannot be written); a read
writes nothing, so there `pitlake --debug …` prints it. Exit codes (README, "Exit codes"):

0 success · 1 a run finished with failed units, or an internal error (a bug) · 2 invalid
arguments · 3 the answer is not OK (a data status), or `query status` finds a dataset stale ·
4 a read cannot answer from this lake: not a lake, an unreadable or corrupt file, the catalog
unreadable or unreachable · 5 a write cannot proceed, or the environment lacks something: the
lake or its catalog cannot be written or reached (permission, a regular file in the path, disk
full, a read-only filesystem, a catalog URL), a vendor token is missing, no network · 141 the
output's reader closed it early (`pitlake query … | head`): 128 + SIGPIPE, as a Unix tool
killed by the pipe exits; the command stops quietly. A broken pipe is never "network": the
vendors' clients wrap their sockets' failures in their own ConnectionError.

Heavy modules (SQLAlchemy, requests) are never imported here: their exception types are
recognised by name along the MRO, so `pitlake --help` stays fast.
"""

from __future__ import annotations

import errno
import os
import select
import sys
import traceback
from datetime import datetime, timezone
from pathlib import Path

from pitlake.errors import (
    InvalidArgumentsError,
    LakeError,
    LakeUnwritableError,
    VendorError,
    VendorNotConfiguredError,
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INVALID = 2
EXIT_NOT_OK = 3
EXIT_LAKE = 4
EXIT_ENVIRONMENT = 5
EXIT_OUTPUT_CLOSED = 141  # 128 + SIGPIPE

ENV_DEBUG = "PITLAKE_DEBUG"
WRITING_COMMANDS = frozenset({"ingest", "dq"})
LOG_DIR = "logs"

_DISK = {errno.ENOSPC: "disk full", errno.EDQUOT: "disk quota exceeded"}
_NETWORK_TYPES = {
    "ConnectionError",  # requests, builtins
    "ConnectTimeout",
    "ReadTimeout",
    "Timeout",
    "NewConnectionError",
    "MaxRetryError",
    "NameResolutionError",
    "gaierror",
}


def _type_names(exc: BaseException) -> set[str]:
    return {t.__name__ for t in type(exc).__mro__}


def _first_line(text: object) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return lines[0] if lines else ""


def _catalog_where(lake: str | None) -> str:
    """The catalog a command used, password hidden: $PITLAKE_CATALOG_URL or <lake>/catalog.db."""
    url = os.environ.get("PITLAKE_CATALOG_URL", "").strip()
    if url:
        if "@" in url and "://" in url:
            scheme, rest = url.split("://", 1)
            creds, host = rest.rsplit("@", 1)
            user = creds.split(":", 1)[0]
            url = f"{scheme}://{user}:***@{host}" if ":" in creds else url
        return url
    return str(Path(lake or "lake") / "catalog.db")


def describe(
    exc: BaseException, *, lake: str | None = None, writing: bool = False
) -> tuple[int, str]:
    """(exit code, one line) for a failure that escaped a command (`writing`: ingest, dq)."""
    names = _type_names(exc)
    if isinstance(exc, LakeUnwritableError):
        return EXIT_ENVIRONMENT, str(exc)
    if isinstance(exc, LakeError):
        return EXIT_LAKE, str(exc)
    if isinstance(exc, InvalidArgumentsError):
        return EXIT_INVALID, f"invalid arguments: {exc}"
    if isinstance(exc, VendorNotConfiguredError):
        return EXIT_ENVIRONMENT, f"not configured: {exc}"
    if isinstance(exc, BrokenPipeError):  # a ConnectionError by type, but not the network
        # The CLI ends quietly when it is stdout's reader that left (output_closed); any
        # other pipe closing under a command is unexpected.
        return EXIT_FAILED, f"internal error: broken pipe: {_first_line(exc)}"
    if "DBAPIError" in names:  # SQLAlchemy: the catalog could not be opened or read
        reason = _first_line(getattr(exc, "orig", None) or exc)
        code = EXIT_ENVIRONMENT if writing else EXIT_LAKE
        return code, f"catalog {_catalog_where(lake)} cannot be used: {reason}"
    if names & _NETWORK_TYPES or isinstance(exc, VendorError):
        return EXIT_ENVIRONMENT, f"network: {_first_line(exc)}"
    if isinstance(exc, OSError):
        where = exc.filename or lake or ""
        if exc.errno in _DISK:
            what = _DISK[exc.errno]
        elif exc.errno == errno.EROFS:
            what = "read-only file system"
        else:
            what = exc.strerror or type(exc).__name__
        return EXIT_ENVIRONMENT, f"cannot write or read {where}: {what}" if where else what
    return EXIT_FAILED, f"internal error: {type(exc).__name__}: {_first_line(exc)}"


def output_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone (POLLERR on its write end), so that a
    BrokenPipeError is the closed output and not some other pipe or socket. Where stdout has no
    descriptor to poll (a test runner's buffer, no poll()), a broken pipe is taken to be it."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return True
    if not hasattr(select, "poll"):
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))


def silence_output() -> None:
    """Point stdout at /dev/null: the reader is gone, and the interpreter's last flush of what
    is still buffered must not fail again at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass


def flush_output() -> None:
    """Flush stdout at the end of a command; a reader gone by then exits EXIT_OUTPUT_CLOSED."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_output()
        raise SystemExit(EXIT_OUTPUT_CLOSED) from None
    except (AttributeError, ValueError):  # no stdout, or one already closed
        pass


def _log_dirs(lake: str | None) -> list[Path]:
    dirs = []
    if lake and "://" not in lake:
        dirs.append(Path(lake) / LOG_DIR)
    dirs.append(Path.home() / ".cache" / "pitlake" / LOG_DIR)
    return dirs


def write_traceback(exc: BaseException, command: str, lake: str | None) -> Path | None:
    """The traceback in a log file of a writing command: `<lake>/logs/`, else the user's cache
    (the lake may be what cannot be written). None when no place takes it."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    text = "".join(traceback.format_exception(exc))
    for i, directory in enumerate(_log_dirs(lake)):
        in_lake = i == 0 and lake is not None and "://" not in lake
        if in_lake and not directory.parent.is_dir():
            continue  # never create the lake itself to hold a log
        path = directory / f"pitlake-{command}-{stamp}-{os.getpid()}.log"
        try:
            directory.mkdir(parents=not in_lake, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError:
            continue
        return path
    return None


def debug_requested(flag: bool = False) -> bool:
    return flag or os.environ.get(ENV_DEBUG, "").strip().lower() in ("1", "true", "yes", "on")


def lake_argument(args: list[str]) -> str | None:
    """The --lake value among a command's arguments, else the default lake rule's."""
    from pitlake.home import lake_root

    for i, arg in enumerate(args):
        if arg == "--lake" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--lake="):
            return arg.split("=", 1)[1]
    return lake_root(None)


def report(exc: BaseException, command: str, args: list[str], *, debug: bool) -> tuple[int, str]:
    """(exit code, the one line to print) for a failed command; with `debug` the caller prints
    the traceback, else a writing command's traceback is saved and the line says where."""
    lake = lake_argument(args)
    code, line = describe(exc, lake=lake, writing=command in WRITING_COMMANDS)
    if debug:
        return code, line
    if command in WRITING_COMMANDS:
        saved = write_traceback(exc, command, lake)
        if saved is not None:
            return code, f"{line} (traceback: {saved})"
    return code, f"{line} (details: pitlake --debug {command} …)"
