"""`pitlake panel`: a walk-forward panel to a Parquet (or Arrow IPC) file (`Lake.panel`).

    pitlake panel close,pe,net_profit_q --start 2025-04-01 --end 2025-06-30 \\
        --universe 000300.SH --output csi300.parquet

Only typer is imported at module level (`pitlake --help` stays fast)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pitlake.home import lake_root

EXIT_OK, EXIT_INVALID, EXIT_NOT_OK, EXIT_FAULT = 0, 2, 3, 4  # as commands/query.py

PANEL_HELP = (
    "Write one row per (session, symbol in that session's universe), each cell what was "
    "known at that session's cutoff (--at, Beijing time; default the 15:00 close; --as-of "
    "caps every row; --as-ingested hides rows stored after it). FIELDS: comma-separated bars, valuation and statement items (x, x_q, "
    "x_ttm, x_yoy). --universe: all (survivorship-free), an index code (000300.SH) or "
    "comma-separated symbols. Exit codes: 0 written; 2 invalid question; 4 the lake could "
    "not answer."
)


def panel(
    fields: Annotated[str, typer.Argument(help="Comma-separated field names.")],
    start: Annotated[str, typer.Option("--start", help="First day (YYYY-MM-DD).")],
    end: Annotated[str, typer.Option("--end", help="Last day (YYYY-MM-DD).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="FILE.parquet or FILE.arrow.")],
    universe: Annotated[
        str, typer.Option("--universe", help="all, an index code, or symbols.")
    ] = "all",
    at: Annotated[
        str, typer.Option("--at", help="Each session's cutoff time, e.g. 15:00, eod.")
    ] = "15:00",
    as_of: Annotated[str | None, typer.Option("--as-of", help="Cap on every cutoff.")] = None,
    as_ingested: Annotated[
        str | None,
        typer.Option("--as-ingested", help="Hide rows stored after this instant (an audit)."),
    ] = None,
    provenance: Annotated[
        bool, typer.Option("--provenance", help="Add each statement's report period and known_at.")
    ] = False,
    lake: Annotated[
        str | None, typer.Option("--lake", help="Lake directory (default: $PITLAKE_HOME, ./lake).")
    ] = None,
) -> None:
    from pitlake.errors import LakeError
    from pitlake.read.lake import Lake
    from pitlake.statuses import ResultStatus

    root = lake or lake_root()
    if "://" not in root and not Path(root).is_dir():
        typer.echo(f"no lake directory at {root} (use --lake DIR or set $PITLAKE_HOME)", err=True)
        raise typer.Exit(EXIT_FAULT)
    asked = (
        universe
        if universe.strip().lower() == "all" or "," not in universe
        else [s.strip() for s in universe.split(",") if s.strip()]
    )
    try:
        with Lake(root) as lk:
            result = lk.panel(
                fields,
                start,
                end,
                universe=asked,
                at=at,
                as_of=as_of,
                provenance=provenance,
                as_ingested=as_ingested,
            )
    except LakeError as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(EXIT_FAULT) from None
    if result.status is ResultStatus.INVALID_ARGUMENTS:
        typer.echo(result.message, err=True)
        raise typer.Exit(EXIT_INVALID)
    table = result.arrow_table()
    if output.suffix.lower() in (".arrow", ".ipc", ".feather"):
        import pyarrow as pa

        with pa.OSFile(str(output), "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
            w.write_table(table)
    else:
        import pyarrow.parquet as pq

        pq.write_table(table, output, compression="zstd")
    # the answer's status first, as `pitlake query` prints it; exit 3 when it is not OK/NO_DATA
    typer.echo(
        f"{result.status.value}  {table.num_rows} rows, {result.meta['sessions']} sessions "
        f"→ {output}" + (f"  {result.message}" if result.message else "")
    )
    ok = result.status in (ResultStatus.OK, ResultStatus.NO_DATA)
    raise typer.Exit(EXIT_OK if ok else EXIT_NOT_OK)


def register(app: typer.Typer) -> None:
    app.command("panel", help=PANEL_HELP)(panel)
