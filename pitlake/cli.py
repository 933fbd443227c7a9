"""`pitlake` command line. Each command lives in its own module and imports its heavy
dependencies (Prefect, GX, DuckDB, FastAPI) inside the command body, so `pitlake --help` and
`pitlake query` stay fast.

Every failure that escapes a command is one line on stderr with a documented exit code
(`pitlake.failures`); `pitlake --debug …` (or PITLAKE_DEBUG=1) prints the traceback too."""

from __future__ import annotations

import logging
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
    "reached, a missing token, no network)."
)


class _OneLineFailures(TyperGroup):
    """The root group: a failure escaping any command becomes one line and an exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        args = [*(getattr(ctx, "_protected_args", None) or []), *ctx.args]
        try:
            return super().invoke(ctx)
        except (typer.Exit, click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as exc:
            command = args[0] if args else ""
            debug = failures.debug_requested(bool(ctx.meta.get("pitlake.debug")))
            code, line = failures.report(exc, command, args[1:], debug=debug)
            if debug:
                traceback.print_exception(exc, file=sys.stderr)
            typer.echo(f"error: {line}", err=True)
            ctx.exit(code)


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


_register()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
