"""`pitlake export qlib DIR --start … --end … [--as-of T]`: a qlib data directory of what the
lake knew at T (pitlake.export.qlib). Prints one JSON summary line; exit 0, 2 for bad
arguments (one line), 3 when a read it needs is not OK / NO_DATA (a failed or never-fetched
session, bars without a factor: one line, nothing written; `--allow-gaps` writes them empty
and lists them in the summary), 4 when the lake cannot be read. The lake is only read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

EXIT_INVALID = 2
EXIT_NOT_OK = 3  # as `pitlake panel` / `pitlake query`: the answer's status is not OK
EXIT_FAULT = 4

export_app = typer.Typer(
    name="export",
    help="Write the lake's point-in-time data in another tool's format.",
    no_args_is_help=True,
    add_completion=False,
)


@export_app.command("qlib")
def qlib(
    directory: Annotated[str, typer.Argument(help="The qlib data directory (absent or empty).")],
    start: Annotated[str, typer.Option(help="First day, YYYY-MM-DD.")],
    end: Annotated[str, typer.Option(help="Last day, YYYY-MM-DD.")],
    as_of: Annotated[
        str | None,
        typer.Option(help="Cutoff: a date (its Beijing end) or an ISO instant; default now."),
    ] = None,
    allow_gaps: Annotated[
        bool,
        typer.Option(
            "--allow-gaps",
            help="Write sessions whose reads are not OK (failed, never fetched, no factor) "
            "empty, listed in the summary's gaps, instead of failing with exit 3.",
        ),
    ] = False,
    lake: Annotated[
        str | None,
        typer.Option(help="Lake directory or s3:// URL (default: $PITLAKE_HOME, else ./lake)."),
    ] = None,
) -> None:
    """Calendar, survivorship-free instruments (all.txt, csi300.txt …), day features in qlib's
    price/factor convention and the statements in qlib's PIT format, as known at --as-of:
    `qlib.init(provider_uri=DIR, region="cn")` then reads them with qlib's own loaders."""
    from pitlake.errors import InvalidArgumentsError, LakeError
    from pitlake.export.qlib import ExportIncompleteError, write_qlib
    from pitlake.home import lake_root
    from pitlake.read.lake import Lake

    root = lake or lake_root()
    if "://" not in root and not Path(root).is_dir():
        typer.echo(
            f"error: no lake directory at {root} (use --lake DIR or set $PITLAKE_HOME)", err=True
        )
        raise typer.Exit(EXIT_FAULT)
    try:
        with Lake(root) as lk:
            _ = lk.catalog  # not a lake: NotALakeError before any argument is judged
            summary = write_qlib(lk, directory, start, end, as_of=as_of, allow_gaps=allow_gaps)
    except ExportIncompleteError as e:
        typer.echo(f"error: export qlib: {' '.join(str(e).split())}", err=True)
        raise typer.Exit(EXIT_NOT_OK) from None
    except InvalidArgumentsError as e:
        typer.echo(f"error: export qlib: {' '.join(str(e).split())}", err=True)
        raise typer.Exit(EXIT_INVALID) from None
    except LakeError as e:
        typer.echo(f"error: {' '.join(str(e).split())}", err=True)
        raise typer.Exit(EXIT_FAULT) from None
    typer.echo(json.dumps(summary.to_dict(), ensure_ascii=False))


def register(app: typer.Typer) -> None:
    app.add_typer(export_app)
