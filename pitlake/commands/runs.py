"""`pitlake runs`: the lake's ingest runs as known at the cutoff, newest first, as a table or
JSON lines — the answer `GET /v1/runs`, the MCP tool `runs` and `Lake.runs` give, through the
same QueryService (pitlake.read.runs).

A run started after the cutoff is not shown; one that ended after it is RUNNING, without its
end. A RUNNING run whose process is gone (killed, the host rebooted) shows ABANDONED with when
it was last alive, judged only when the cutoff is now. Exit codes are `pitlake query`'s: 0 OK
(or no run yet), 2 bad arguments, 4 the lake cannot be read."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from pitlake.commands import console


def runs(
    lake: Annotated[
        str | None,
        typer.Option(help="Lake directory or s3:// URL (default: $PITLAKE_HOME, else ./lake)."),
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            help="The runs as known at this date (end of its Beijing day) or ISO instant.",
        ),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="How many runs.")] = 15,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines, one per run.")] = False,
) -> None:
    """The recent ingest runs as known at the cutoff: status (ABANDONED: RUNNING but its
    process is gone), when it started, was last alive and ended, and its flow."""
    from pitlake.commands.query import exit_code
    from pitlake.errors import NotALakeError
    from pitlake.home import lake_root
    from pitlake.serve.api.faults import Fault, fault_envelope
    from pitlake.serve.api.service import Answer, QueryService

    service = QueryService(lake or lake_root())
    try:
        service.require_lake()
        answer = service.runs(as_of=as_of, limit=limit)
    except NotALakeError as e:  # nothing was created there; exit 4 with the message
        answer = Answer(fault_envelope(Fault.NOT_A_LAKE, e), Fault.NOT_A_LAKE)
    finally:
        service.close()
    env = answer.public()
    if not answer.ok:
        typer.echo(env["message"], err=True)
    elif as_json:
        for row in env["data"] or []:
            typer.echo(json.dumps(row, ensure_ascii=False))
    else:
        _print(env["data"] or [], env["as_of"])
    raise typer.Exit(exit_code(answer))


def _print(rows: list[dict[str, Any]], as_of: str) -> None:
    from rich.table import Table
    from rich.text import Text

    if not rows:
        console().print(f"No run started by {as_of}.")
        return
    table = Table("run", "flow", "status", "started", "last alive", "ended", title=f"as of {as_of}")
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
    app.command("runs", help="The lake's ingest runs as known at the cutoff (ABANDONED: killed).")(
        runs
    )
