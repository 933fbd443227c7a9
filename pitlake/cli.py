"""`pitlake` command line. Each command lives in its own module and imports its heavy
dependencies (Prefect, GX, DuckDB, FastAPI) inside the command body, so `pitlake --help` and
`pitlake query` stay fast."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="pitlake",
    help="Point-in-time data lake for China A-share market data.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Point-in-time data lake for China A-share market data."""


def _register() -> None:
    from pitlake.commands import ingest as ingest_cmd

    ingest_cmd.register(app)
    try:
        from pitlake.commands import query as query_cmd
    except ImportError:  # lands with the query API
        pass
    else:
        query_cmd.register(app)


_register()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
