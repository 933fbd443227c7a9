"""`pitlake runs`: the lake's recent ingest runs, newest first, as a table or JSON.

A RUNNING run whose process is gone (killed, the host rebooted) shows ABANDONED with when it
was last alive (`pitlake.lake.run_liveness`). Exit status: 0, or 4 when the lake cannot be
read (not a lake, an unreadable catalog); 2 for bad arguments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from pitlake.commands import console

EXIT_INVALID = 2
EXIT_FAULT = 4


def runs(
    lake: Annotated[
        str | None,
        typer.Option(help="Lake directory or s3:// URL (default: $PITLAKE_HOME, else ./lake)."),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="How many runs.")] = 15,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines, one per run.")] = False,
) -> None:
    """The recent ingest runs: status (ABANDONED: RUNNING but its process is gone), when it
    started, was last alive and ended, and its flow."""
    from pitlake.errors import LakeError
    from pitlake.home import lake_root
    from pitlake.lake.run_liveness import ABANDONED, shown_status
    from pitlake.read.lake import Lake

    root = lake or lake_root()
    if "://" not in root and not Path(root).is_dir():
        typer.echo(f"no lake directory at {root} (use --lake DIR or set $PITLAKE_HOME)", err=True)
        raise typer.Exit(EXIT_FAULT)
    try:
        with Lake(root) as lk:
            found = lk.catalog.runs(limit)
    except LakeError as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(EXIT_FAULT) from None
    rows: list[dict[str, Any]] = []
    for r in found:
        status = shown_status(r)
        row = r.to_dict()
        row.pop("summary", None)
        row["recorded_status"], row["status"] = r.status, status
        row["last_alive"] = row["alive_at"] if status == ABANDONED else None
        rows.append(row)
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row, ensure_ascii=False))
        raise typer.Exit(0)
    _print(rows)


def _print(rows: list[dict[str, Any]]) -> None:
    from rich.table import Table
    from rich.text import Text

    if not rows:
        console().print("No run recorded yet.")
        return
    table = Table("run", "flow", "status", "started", "last alive", "ended")
    for r in rows:
        style = {"COMPLETED": "green", "FAILED": "red", "ABANDONED": "yellow"}.get(r["status"])
        table.add_row(
            Text(r["run_id"]),
            Text(r["flow"] or "—"),
            Text(r["status"], style=style or ""),
            Text(r["started_at"] or "—"),
            Text(r["last_alive"] or "—"),
            Text(r["ended_at"] or "—"),
        )
    console().print(table)


def register(app: typer.Typer) -> None:
    app.command("runs", help="The lake's recent ingest runs (ABANDONED: killed mid-run).")(runs)
