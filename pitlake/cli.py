"""`pitlake` command line. Each command lives in its own module, imported only when its word
is given (`COMMANDS`): `pitlake --help` lists the words from that table without importing any
command, and `pitlake query` loads the query module alone, never Prefect, GX or FastAPI.

Every failure that escapes a command is one line on stderr with a documented exit code
(`pitlake.failures`); `pitlake --debug …` (or PITLAKE_DEBUG=1) prints the traceback too. A usage
error (an unknown option or command word, a missing argument, a value its option's type
refuses) is one line too, exit 2. A reader that closes the output early (`| head`) ends the
command quietly, exit 141 (128 + SIGPIPE, as `seq … | head` does)."""

from __future__ import annotations

import errno
import importlib
import logging
import os
import sys
import traceback
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from pitlake import failures

EXIT_CODES_HELP = (
    "Exit codes: 0 success; 1 a run with failed units, or an internal error; 2 invalid "
    "arguments; 3 an answer that is not OK, or `query status` finding a dataset stale; 4 a read "
    "cannot answer from this lake (not a lake, an unreadable file or catalog); 5 a write cannot "
    "proceed or the environment lacks something (the lake or catalog cannot be written or "
    "reached, a missing token, no network); 141 the output's reader closed it early (`| head`)."
)


if TYPE_CHECKING:
    import click

# click, when typer uses it (typer >= 0.2x vendors click as `typer._click` and loads none: then
# nothing can raise click's own classes, and `pitlake` need not import it, ~15 ms).
_CLICK = sys.modules.get("click")


def _click_class(name: str) -> tuple[type[BaseException], ...]:
    """click's exception class `name` (if click is loaded), and typer's own copy of it (typer's
    vendored parser raises `typer._click.exceptions.*`, which click's classes do not catch)."""
    ours = [t for t in typer.BadParameter.__mro__ if t.__name__ == name]
    theirs = [getattr(_CLICK.exceptions, name)] if _CLICK is not None else []
    return tuple(dict.fromkeys([*theirs, *ours]))


_USAGE_ERRORS = _click_class("UsageError")
_CLICK_EXCEPTIONS = _click_class("ClickException")
_EXITS = (typer.Exit, typer.Abort, *_click_class("Exit"), *_click_class("Abort"))
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


# Each command word: the module whose `register(app)` adds it, and its line in `pitlake --help`
# (a test holds each line to the loaded command's own help). Order is the help's order.
COMMANDS: dict[str, tuple[str, str]] = {
    "ingest": (
        "pitlake.commands.ingest",
        "Ingest into the lake: one session with the nightly flow (--date, default the latest "
        "closed session), or a range with the backfill flow (--start/--end).",
    ),
    "dq": (
        "pitlake.commands.ingest",
        "Rebuild the Data Docs site under <lake>/dq/ from the catalog's validation results.",
    ),
    "query": (
        "pitlake.commands.query",
        "Ask the lake what was known as of a cutoff; prints the answer envelope.",
    ),
    "serve": (
        "pitlake.commands.query",
        "Serve the HTTP query API (FastAPI; OpenAPI at /openapi.json, docs at /docs).",
    ),
    "mcp": ("pitlake.commands.query", "Serve the query tools over MCP (stdio)."),
    "sql": (
        "pitlake.commands.sql",
        "Run one SQL statement over views of what was public at the as-of.",
    ),
    "vendors": (
        "pitlake.commands.vendors",
        "Check the vendors pitlake calls (run after upgrading akshare or changing tokens).",
    ),
    "runs": (
        "pitlake.commands.runs",
        "The lake's ingest runs as known at the cutoff (ABANDONED: killed).",
    ),
    "datasets": (
        "pitlake.commands.datasets",
        "What is in the lake: the catalogue of datasets, as of a date.",
    ),
    "panel": (
        "pitlake.commands.panel",
        "Write one row per (session, symbol in that session's universe), each cell what was "
        "known at that session's cutoff (--at, Beijing time; default the 15:00 close; --as-of "
        "caps every row; --as-ingested hides rows stored after it).",
    ),
    "export": (
        "pitlake.commands.export",
        "Write the lake's point-in-time data in another tool's format.",
    ),
}


class _LazyCommands(TyperGroup):
    """A group whose commands are imported on first use: the word given loads its module
    (`COMMANDS`); the help page lists every word with a stand-in carrying its help line."""

    _listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *(n for n in self.commands if n not in COMMANDS)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            if self._listing:
                return TyperCommand(cmd_name, help=COMMANDS[cmd_name][1])
            self.load(COMMANDS[cmd_name][0])
        return self.commands.get(cmd_name)

    def load(self, module: str) -> None:
        """Add the commands of one command module (its `register`) to this group."""
        words = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
        importlib.import_module(module).register(words)
        for name, command in typer.main.get_group(words).commands.items():
            self.commands.setdefault(name, command)

    def format_help(self, ctx: click.Context, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        """An unknown word gets typer's 'Did you mean …?' over every word, loaded or not."""
        try:
            return super().resolve_command(ctx, args)
        except _USAGE_ERRORS as exc:
            message = getattr(exc, "message", "")
            if args and "Did you mean" not in message:
                import difflib

                near = difflib.get_close_matches(args[0], self.list_commands(ctx))
                if near:
                    words = ", ".join(repr(w) for w in near)
                    exc.message = f"{message.rstrip('.')}. Did you mean {words}?"
            raise


class _OneLineFailures(_LazyCommands):
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


# Command words that are groups: given alone, they print their help (no_args_is_help).
_GROUP_WORDS = frozenset({"vendors", "export"})


def prints_help(args: list[str]) -> bool:
    """Whether these arguments may print a help page: `--help` anywhere, no command word, or
    a group's word alone. Only then is typer's help renderer (rich, ~0.15 s) imported."""
    words = [a for a in args if not a.startswith("-")]
    return "--help" in args or not words or (words[0] in _GROUP_WORDS and len(words) == 1)


def main() -> None:
    if prints_help(sys.argv[1:]):
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
