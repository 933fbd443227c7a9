"""`pitlake datasets`: what is in the lake (the catalogue, pitlake.read.catalogue) as a table,
one dataset's columns, or the envelope as JSON (`--json`) — the answer `GET /v1/catalog`, the
MCP tool `datasets` and `Lake.datasets` give, through the same QueryService.

Only typer is imported at module level: `pitlake --help` must not pay for pandas, pyarrow or
DuckDB. Exit codes are `pitlake query`'s (0 OK, 2 INVALID_ARGUMENTS, 4 the lake could not
answer)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer


def datasets(
    dataset: Annotated[
        str | None,
        typer.Argument(help="One dataset: list its columns (type, unit, description)."),
    ] = None,
    lake: Annotated[
        str | None,
        typer.Option(help="Lake directory or s3:// URL (default: $PITLAKE_HOME, else ./lake)."),
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            help="What the lake held as of this date (end of its Beijing day) or ISO instant.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the envelope as JSON.")] = False,
) -> None:
    """Every dataset: key, known-at rule and bases, vendors and default chain, and what this
    lake holds of it as of the cutoff (rows, first and last date, last successful fetch)."""
    from pitlake.commands.query import exit_code
    from pitlake.errors import NotALakeError
    from pitlake.home import lake_root
    from pitlake.serve.api.faults import Fault, fault_envelope
    from pitlake.serve.api.service import Answer, QueryService

    service = QueryService(lake or lake_root())
    try:
        service.require_lake()
        answer = service.catalogue(as_of=as_of)
    except NotALakeError as e:  # nothing was created there; exit 4 with the envelope
        answer = Answer(fault_envelope(Fault.NOT_A_LAKE, e), Fault.NOT_A_LAKE)
    finally:
        service.close()
    env = answer.public()
    if dataset is not None and answer.ok:
        rows = [r for r in env["data"] if dataset.replace("-", "_") in (r["name"], r["asked_as"])]
        if not rows:
            from pitlake.envelope import Result

            names = ", ".join(r["name"] for r in env["data"])
            answer = Answer(
                Result.invalid(f"unknown dataset {dataset!r}; one of {names}").to_dict()
            )
            env = answer.public()
        else:
            env["data"] = rows
    if as_json:
        typer.echo(json.dumps(env, ensure_ascii=False, indent=2))
    elif not answer.ok:
        typer.echo(env["message"], err=True)
    elif dataset is not None:
        _print_fields(env["data"][0])
    else:
        _print_catalogue(env)
    raise typer.Exit(exit_code(answer))


def _span(held: dict[str, Any]) -> str:
    if not held["rows"]:
        return "—"
    return f"{held['first_date']} … {held['last_date']}"


def _print_catalogue(env: dict[str, Any]) -> None:
    from rich.table import Table

    from pitlake.commands import console

    table = Table(
        "dataset", "kind", "key", "known at (bases)", "vendors (default chain)", "rows", "dates",
        "last successful fetch", title=f"What the lake holds as of {env['as_of']}",
    )  # fmt: skip
    for r in env["data"]:
        held = r["held"]
        table.add_row(
            r["name"],
            r["kind"],
            ", ".join(r["key"]),
            f"{r['known_at']['rule'].removeprefix('rule_')} ({', '.join(r['known_at']['bases'])})",
            f"{', '.join(r['vendors'])} ({' → '.join(r['default_chain'])})",
            str(held["rows"]),
            _span(held),
            held["last_successful_fetch"] or "—",
        )
    console().print(table)
    console().print("One dataset's columns: pitlake datasets NAME; everything: --json.")


def _print_fields(r: dict[str, Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from pitlake.commands import console

    out = console()
    out.print(Text(f"{r['name']} ({r['kind']}, key {', '.join(r['key'])})", style="bold"))
    if r["description"]:
        out.print(Text(r["description"]))
    known = r["known_at"]
    bases = ", ".join(known["bases"])
    out.print(Text(f"known at: {known['description'] or known['rule']} (bases: {bases})"))
    out.print(f"vendors: {', '.join(r['vendors'])}; default chain {' → '.join(r['default_chain'])}")
    held = r["held"]
    out.print(f"held: {held['rows']} row version(s), {_span(held)}")
    table = Table("column", "type", "unit", "description")
    for f in r["fields"]:
        name = f"{f['name']} (key)" if f["key"] else f["name"]
        cells = (name, f["type"], f["unit"] or "", f["description"] or "")
        table.add_row(*(Text(c) for c in cells))  # Arrow types hold brackets: not markup
    out.print(table)


def register(app: typer.Typer) -> None:
    app.command("datasets", help="What is in the lake: the catalogue of datasets, as of a date.")(
        datasets
    )
