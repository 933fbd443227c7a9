"""`pitlake` command line. Heavy imports (Prefect, GX, DuckDB) happen inside commands, so
`pitlake --help` and `pitlake query` stay fast."""

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


@app.command()
def ingest() -> None:
    """Run the nightly ingest flow (not implemented yet: lands with the flows issue)."""
    typer.echo("pitlake ingest: not implemented yet (lands with the Prefect flows issue)", err=True)
    raise typer.Exit(2)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
