"""`pitlake` command line. Each command lives in its own module and imports its heavy
dependencies (Prefect, GX, DuckDB, FastAPI) inside the command body, so `pitlake --help` and
`pitlake query` stay fast.

Every failure that escapes a command is one line on stderr with a documented exit code
(`pitlake.failures`); `pitlake --debug …` (or PITLAKE_DEBUG=1) prints the traceback too. A usage
error (an unknown option or command word, a missing argument, a value its option's type
refuses) is one line too, exit 2. A reader that closes the output early (`| head`) ends the
command quietly, exit 141 (128 + SIGPIPE, as `seq … | head` does)."""

from __future__ import annotations

import errno
import logging
import os
import sys
import traceback
from typing import Annotated, Any

import click
import typer
from typer.core import TyperGroup

from pitlake import failures

EXIT_CODES_HELP = (
    "Exit codes: 0 success; 1 a run with failed units, or an internal error; 2 invalid "
    "arguments; 3 an answer that is not OK, or `query status` finding a dataset stale; 4 a read "
    "cannot answer from this lake (not a lake, an unreadable file or catalog); 5 a write cannot "
    "proceed or the environment lacks something (the lake or catalog cannot be written or "
    "reached, a missing token, no network); 141 the output's reader closed it early (`| head`)."
)


def _click_class(name: str) -> tuple[type[BaseException], ...]:
    """click's exception class `name`, and typer's own copy of it (typer >= 0.2x vendors
    click: its parser raises `typer._click.exceptions.*`, which click's classes do not catch)."""
    ours = [t for t in typer.BadParameter.__mro__ if t.__name__ == name]
    return tuple(dict.fromkeys([getattr(click.exceptions, name), *ours]))


_USAGE_ERRORS = _click_class("UsageError")
_CLICK_EXCEPTIONS = _click_class("ClickException")
_EXITS = (typer.Exit, click.exceptions.Exit, typer.Abort, click.Abort)
# `pitlake` alone prints the help (no_args_is_help): a usage error by type, help by intent.
_HELP_ERRORS = ("NoArgsIsHelpError",)


def _usage_line(exc: BaseException, fallback: str) -> str:
    """One line for a usage error: the command, what was wrong (click's text, with its
    'Did you mean …?' when an option or command is near), and where the options are listed."""
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else fallback
    format_message = getattr(exc, "format_message", None)
    text = format_message() if callable(format_message) else str(exc)
    text = " ".join(text.split())
    return f"error: {where}: {text} (see {where} --help)"


def _usage_exit(exc: BaseException, fallback: str) -> int:
    typer.echo(_usage_line(exc, fallback), err=True)
    return failures.EXIT_INVALID


class _OneLineFailures(TyperGroup):
    """The root group: a failure escaping any command becomes one line and an exit code."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        """The root's own options (`pitlake --bogus`) are parsed here, before `invoke`."""
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except _USAGE_ERRORS as exc:
            if type(exc).__name__ in _HELP_ERRORS:
                raise
            raise typer.Exit(_usage_exit(exc, info_name or "pitlake")) from None

    def invoke(self, ctx: click.Context) -> Any:
        args = [*(getattr(ctx, "_protected_args", None) or []), *ctx.args]
        try:
            return super().invoke(ctx)
        except _USAGE_ERRORS as exc:  # a subcommand's arguments, or an unknown command word
            if type(exc).__name__ in _HELP_ERRORS:
                raise
            ctx.exit(_usage_exit(exc, ctx.command_path))
        except (*_EXITS, *_CLICK_EXCEPTIONS):
            raise
        except BrokenPipeError as exc:
            if not failures.output_closed():  # some other pipe or socket: report it
                ctx.exit(self._report(ctx, args, exc))
            failures.silence_output()  # the reader is gone: nothing more to say
            ctx.exit(failures.EXIT_OUTPUT_CLOSED)
        except Exception as exc:
            ctx.exit(self._report(ctx, args, exc))

    @staticmethod
    def _report(ctx: click.Context, args: list[str], exc: Exception) -> int:
        """Print the failure's one line (and, under --debug, its traceback); its exit code."""
        command = args[0] if args else ""
        debug = failures.debug_requested(bool(ctx.meta.get("pitlake.debug")))
        code, line = failures.report(exc, command, args[1:], debug=debug)
        if debug:
            traceback.print_exception(exc, file=sys.stderr)
        typer.echo(f"error: {line}", err=True)
        return code


app = typer.Typer(
    name="pitlake",
    help="Point-in-time data lake for China A-share market data.\n\n" + EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_OneLineFailures,
)


def _quiet_logs(debug: bool) -> None:
    """pitlake's own log records (the query service logs each fault with its traceback) reach
    stderr only under --debug: otherwise Python's last-resort handler would print them beside
    the envelope. A command that wants logs (serve: uvicorn's) configures its own handlers."""
    logger = logging.getLogger("pitlake")
    if debug:
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    elif not logger.handlers:
        logger.addHandler(logging.NullHandler())


@app.callback()
def _root(
    ctx: typer.Context,
    debug: Annotated[
        bool,
        typer.Option("--debug", help="Print the traceback of a failure (also PITLAKE_DEBUG=1)."),
    ] = False,
) -> None:
    """Point-in-time data lake for China A-share market data."""
    ctx.meta["pitlake.debug"] = debug
    _quiet_logs(failures.debug_requested(debug))


def _register() -> None:
    from pitlake.commands import ingest as ingest_cmd

    ingest_cmd.register(app)
    try:
        from pitlake.commands import query as query_cmd
    except ImportError:  # lands with the query API
        pass
    else:
        query_cmd.register(app)
    from pitlake.commands import sql as sql_cmd  # point-in-time SQL (H7)

    sql_cmd.register(app)
    from pitlake.commands import vendors as vendors_cmd  # the live canary (H2)

    vendors_cmd.register(app)
    from pitlake.commands import runs as runs_cmd  # recent runs, abandoned ones named

    runs_cmd.register(app)
    from pitlake.commands import panel as panel_cmd  # walk-forward panels (issue 29)

    panel_cmd.register(app)


_register()


def _help_pages_report_a_closed_pipe() -> None:
    """typer prints help (`pitlake query --help | head`) on its own rich console, whose
    broken-pipe handling exits 1; make it raise BrokenPipeError like every other output."""
    try:
        from typer import rich_utils
    except ImportError:  # typer without rich: click prints the help, no console to mend
        return
    make = getattr(rich_utils, "_get_rich_console", None)
    if make is None or getattr(make, "pitlake", False):
        return

    def console(stderr: bool = False) -> Any:
        out = make(stderr=stderr)
        out.on_broken_pipe = _closed_pipe
        return out

    def _closed_pipe() -> None:
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    console.pitlake = True  # type: ignore[attr-defined]
    rich_utils._get_rich_console = console


def main() -> None:
    _help_pages_report_a_closed_pipe()
    try:
        app()
    except (BrokenPipeError, SystemExit) as exc:  # a help page's reader closed the pipe early
        # (typer's own main turns that BrokenPipeError into exit 1, raised while handling it)
        pipe = exc if isinstance(exc, BrokenPipeError) else exc.__context__
        if not isinstance(pipe, BrokenPipeError) or not failures.output_closed():
            raise
        failures.silence_output()
        raise SystemExit(failures.EXIT_OUTPUT_CLOSED) from None
    finally:
        # Output still buffered when the command ended is written now; a reader gone by then
        # (`| head`) must not turn into "Exception ignored … BrokenPipeError" at exit.
        failures.flush_output()


if __name__ == "__main__":
    main()
