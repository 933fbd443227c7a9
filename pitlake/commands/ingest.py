"""`pitlake ingest` and `pitlake dq`: run the Prefect flows and rebuild Data Docs."""

from __future__ import annotations

import typer


def ingest() -> None:
    """Run the nightly ingest flow (not implemented yet: lands with the flows issue)."""
    typer.echo("pitlake ingest: not implemented yet", err=True)
    raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    app.command()(ingest)
