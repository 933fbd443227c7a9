"""`pitlake sql`: point-in-time SQL on the command line (`Lake.sql`).

    pitlake sql --as-of 2024-06-30 "SELECT symbol, close FROM quotes WHERE trade_date = '2024-06-28'"

Only typer is imported at module level (`pitlake --help` stays fast).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pitlake.commands import console as terminal
from pitlake.home import lake_root
from pitlake.statuses import ResultStatus

if TYPE_CHECKING:
    import pyarrow as pa

    from pitlake.envelope import Result

SQL_FORMATS = ("table", "csv", "parquet", "arrow", "json")
MAX_TABLE_ROWS = 100
EXIT_OK, EXIT_INVALID, EXIT_RETRY, EXIT_FAULT = 0, 2, 3, 4

SQL_HELP = (
    "Run one SQL statement over views of what was public at the as-of.\n\n"
    "Views: quotes, adj_factors, valuation, financials, news, dragon_tiger (the newest version "
    "per key public at the as-of), <dataset>_versions (every version public by then), "
    "quotes_qfq / quotes_hfq (adjusted with the factors known at the as-of) and calendar. "
    "Nothing published after the as-of is in them, and the lake's files cannot be read from "
    "the statement.\n\n"
    "--format table (default, readable), csv, json (the envelope), parquet or arrow (binary: "
    "to --output, or to a pipe). Limits (--timeout, --max-rows, --max-bytes; also "
    "$PITLAKE_SQL_TIMEOUT, $PITLAKE_SQL_MAX_ROWS, $PITLAKE_SQL_MAX_BYTES): past one the "
    "statement is refused with a message naming it. Exit codes: 0 rows or none; 2 invalid "
    "statement or as-of, or a limit reached; 3 interrupted or busy (retry); 4 the lake could not "
    "answer."
)


def sql(
    query: Annotated[str, typer.Argument(help="One SQL statement (- reads it from stdin)")],
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="Cutoff: YYYY-MM-DD (end of that Beijing day) or ISO-8601."),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="table, csv, json, parquet or arrow.")
    ] = "table",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
    lake: Annotated[
        str | None, typer.Option("--lake", help="Lake directory (default: $PITLAKE_HOME, ./lake).")
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(help="Interrupt the statement after this many seconds (default 30; 0: none)."),
    ] = None,
    max_rows: Annotated[
        int | None,
        typer.Option(help="Refuse an answer of more rows (default 1,000,000; 0: no cap)."),
    ] = None,
    max_bytes: Annotated[
        int | None,
        typer.Option(help="Refuse an answer of more Arrow bytes (default 256 MiB; 0: no cap)."),
    ] = None,
) -> None:
    if query == "-":  # the statement on stdin (a file: `pitlake sql - < query.sql`)
        query = sys.stdin.read()
    fmt = fmt.strip().lower()
    if fmt not in SQL_FORMATS:
        typer.echo(f"--format must be one of {', '.join(SQL_FORMATS)}", err=True)
        raise typer.Exit(EXIT_INVALID)
    if fmt in ("parquet", "arrow") and output is None and sys.stdout.isatty():
        typer.echo(f"--format {fmt} is binary: give --output FILE or pipe it", err=True)
        raise typer.Exit(EXIT_INVALID)
    caps = {"timeout": timeout, "max_rows": max_rows, "max_bytes": max_bytes}
    result = _run(lake or lake_root(), query, as_of, caps)
    if result is None:
        raise typer.Exit(EXIT_FAULT)
    if result.status is ResultStatus.INVALID_ARGUMENTS:
        typer.echo(result.message, err=True)
        raise typer.Exit(EXIT_INVALID)
    if result.status is ResultStatus.RATE_LIMITED:  # interrupted, or no statement slot free
        typer.echo(result.message, err=True)
        raise typer.Exit(EXIT_RETRY)
    from pitlake.read.column_types import format_refusal

    refused = format_refusal(result.table.schema, fmt) if result.table is not None else None
    if refused is not None:
        typer.echo(refused, err=True)
        raise typer.Exit(EXIT_INVALID)
    _write(result, fmt, output)
    raise typer.Exit(EXIT_OK)


def _run(root: str, query: str, as_of: str | None, caps: dict[str, Any]) -> Result | None:
    """Lake.sql over the lake at `root` (None, with the reason on stderr, when it cannot)."""
    from pitlake.errors import LakeError
    from pitlake.read.lake import Lake

    if "://" not in root and not Path(root).is_dir():
        typer.echo(f"no lake directory at {root} (use --lake DIR or set $PITLAKE_HOME)", err=True)
        return None
    try:
        with Lake(root) as lk:
            return lk.sql(query, as_of=as_of, **caps)
    except LakeError as e:
        typer.echo(str(e), err=True)
        return None


def _write(result: Result, fmt: str, output: Path | None) -> None:
    if fmt == "table":
        _print_table(result)
        return
    if fmt == "json":
        text = json.dumps(result.to_dict(), ensure_ascii=False, indent=2)
        _emit(text.encode() + b"\n", output)
        return
    table = result.arrow_table()
    if fmt == "csv":
        import pyarrow.csv as pacsv

        buf = _buffer()
        pacsv.write_csv(_flat(table), buf)
        _emit(buf.getvalue().to_pybytes(), output)
        return
    buf = _buffer()
    if fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, buf, compression="zstd")
    else:
        import pyarrow as pa

        with pa.ipc.new_stream(buf, table.schema) as writer:
            writer.write_table(table)
    _emit(buf.getvalue().to_pybytes(), output)


def _buffer() -> Any:
    import pyarrow as pa

    return pa.BufferOutputStream()


def _flat(table: pa.Table) -> pa.Table:
    """CSV has no nested cells: lists and structs become their JSON text."""
    import pyarrow as pa

    from pitlake.records import json_value

    cols = {}
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_nested(col.type):
            texts = [
                None if v is None else json.dumps(json_value(v), ensure_ascii=False)
                for v in col.to_pylist()
            ]
            col = pa.chunked_array([pa.array(texts, pa.string())])
        cols[name] = col
    return pa.table(cols)


def _emit(data: bytes, output: Path | None) -> None:
    if output is not None:
        output.write_bytes(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def _print_table(result: Result) -> None:
    from rich.table import Table
    from rich.text import Text

    from pitlake.records import to_records

    con = terminal()
    table = result.table
    rows = to_records(table.slice(0, MAX_TABLE_ROWS)) if table is not None else result.rows
    names = table.column_names if table is not None else list(rows[0]) if rows else []
    out = Table(show_lines=False)
    for name in names:
        out.add_column(Text(name), overflow="fold")
    for row in rows:  # Text: a cell is data, never Rich markup ('[/x]', '[bold]')
        out.add_row(*(Text("" if row[n] is None else _cell(row[n])) for n in names))
    con.print(out)
    total = result.meta.get("rows", len(rows))
    shown = f"{len(rows)} of {total} rows" if total > len(rows) else f"{total} rows"
    note = f" {result.message}" if result.message else ""
    con.print(Text(f"{shown}, as of {result.as_of}.{note}", style="dim"))


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.4f}".rstrip("0").rstrip(".")
    if isinstance(v, dict | list):
        return json.dumps(v, ensure_ascii=False)
    return str(v)


def register(app: typer.Typer) -> None:
    app.command("sql", help=SQL_HELP)(sql)
