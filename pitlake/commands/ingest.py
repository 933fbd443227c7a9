"""`pitlake ingest` (run the nightly or backfill flow in Prefect's ephemeral mode) and
`pitlake dq` (rebuild the Data Docs)."""

from __future__ import annotations

import importlib
import json
import logging
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from pitlake.commands import console
from pitlake.commands.progress_view import ProgressView
from pitlake.failures import EXIT_ENVIRONMENT
from pitlake.preflight import LOGS_DIR, check_writable_lake
from pitlake.statuses import RUN_DONE, LedgerStatus

EXIT_FAILED = 1
EXIT_INVALID = 2


def _lake(lake: str | None) -> str:
    from pitlake.home import lake_root

    return lake_root(lake)


def _split(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    out = [p.strip() for v in values for p in v.split(",") if p.strip()]
    return out or None


def _print_summary(summary: dict[str, Any], title: str) -> None:
    from rich.table import Table
    from rich.text import Text

    ok = summary["completed"]
    table = Table(title=f"{title}: {'Completed' if ok else 'Failed'}", title_justify="left")
    for col in ("dataset", "status", "units", "rows", "added", "vendor", "expectations", "message"):
        table.add_column(col, overflow="fold")
    for d in summary["datasets"]:
        style = "green" if d["status"] in RUN_DONE else "red"
        table.add_row(
            d["dataset"],
            f"[{style}]{d['status']}[/{style}]",
            str(d["units"]),
            str(d["rows"]),
            str(d["rows_added"]),
            ", ".join(d["vendors"]) or "—",
            ", ".join(d["expectations"]) or "—",
            Text("" if d["status"] == LedgerStatus.OK else (d.get("message") or "")[:200]),
        )
    if summary["datasets"]:
        console().print(table)
    else:
        console().print(table.title)
    if summary.get("note"):
        console().print(Text(summary["note"]), soft_wrap=True)


def ingest(
    date: Annotated[str | None, typer.Option("--date", help="One session (nightly flow).")] = None,
    start: Annotated[str | None, typer.Option(help="Backfill from this date.")] = None,
    end: Annotated[str | None, typer.Option(help="Backfill through this date.")] = None,
    datasets: Annotated[
        list[str] | None, typer.Option("--datasets", help="Comma-separated datasets.")
    ] = None,
    symbols: Annotated[
        list[str] | None, typer.Option("--symbols", help="Comma-separated symbols.")
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(help="replay:DIR for recorded data; default: the live vendor chain."),
    ] = None,
    vendors: Annotated[
        str | None, typer.Option(help="Live vendors in chain order, e.g. tushare,akshare.")
    ] = None,
    lake: Annotated[
        str | None, typer.Option(help="Lake directory ($PITLAKE_HOME, ./lake).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Backfill: refetch units the ledger has.")] = False,
    not_ready_retries: Annotated[
        int, typer.Option(help="Nightly: refetch NOT_READY datasets this many times.")
    ] = 1,
    not_ready_delay: Annotated[
        float, typer.Option(help="Nightly: seconds to wait before refetching.")
    ] = 900.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show Prefect's logs.")] = False,
) -> None:
    """Ingest into the lake: one session with the nightly flow (--date, default the latest
    closed session), or a range with the backfill flow (--start/--end). Exits non-zero if
    the run did not complete."""
    from pitlake.errors import InvalidArgumentsError

    # Prefect's own INFO logs (temporary server, task states) are noise on the CLI.
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO" if verbose else "WARNING")
    if source and vendors:
        typer.echo("give --source or --vendors, not both", err=True)
        raise typer.Exit(EXIT_INVALID)
    if vendors:
        source = f"vendors:{vendors}"
    if date and (start or end):
        typer.echo("give --date, or --start and --end, not both", err=True)
        raise typer.Exit(EXIT_INVALID)
    if bool(start) != bool(end):
        typer.echo("--start and --end go together", err=True)
        raise typer.Exit(EXIT_INVALID)
    try:
        summary, title = _run(
            date=date,
            start=start,
            end=end,
            datasets=_split(datasets),
            symbols=_split(symbols),
            source=source,
            lake=_lake(lake),
            force=force,
            not_ready_retries=not_ready_retries,
            not_ready_delay=not_ready_delay,
            show_progress=ProgressView.mode_for(as_json),
            verbose=verbose,
        )
    except InvalidArgumentsError as e:
        typer.echo(f"invalid arguments: {e}", err=True)
        raise typer.Exit(EXIT_INVALID) from None
    except RunWithoutSummary as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(EXIT_FAILED) from None
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False, indent=2, default=str))
    else:
        _print_summary(summary, title)
        if summary.get("log"):
            typer.echo(f"warnings and tracebacks: {summary['log']}", err=True)
    if not summary["completed"]:
        unwritable = any(
            d["status"] == LedgerStatus.LAKE_UNWRITABLE for d in summary["datasets"]
        )  # the help's exit 5: a write that cannot proceed
        raise typer.Exit(EXIT_ENVIRONMENT if unwritable else EXIT_FAILED)


def _run(
    *,
    date: str | None,
    start: str | None,
    end: str | None,
    datasets: list[str] | None,
    symbols: list[str] | None,
    source: str | None,
    lake: str,
    force: bool,
    not_ready_retries: int,
    not_ready_delay: float,
    show_progress: str,
    verbose: bool = False,
) -> tuple[dict[str, Any], str]:
    # Validate before paying for Prefect's start-up.
    from pitlake import schemas
    from pitlake.calendar import to_date
    from pitlake.pipeline.planning import check_datasets, month_chunks
    from pitlake.pipeline.resources import new_run_id
    from pitlake.vendors.registry import parse_source

    parse_source(source)
    syms = schemas.run_symbols(symbols) or None
    if date:
        to_date(date)
    if start and end:
        month_chunks(to_date(start), to_date(end))
    check_datasets(datasets, schemas.BACKFILL_DATASETS if start else schemas.NIGHTLY_DATASETS, syms)
    check_writable_lake(lake)  # one LakeUnwritableError naming the path, before any flow

    run_id = new_run_id("backfill" if start else "nightly")
    from pitlake.flows.ephemeral import temporary_server

    with IngestLog(lake, run_id, verbose=verbose) as run_log, temporary_server(run_log.path):
        state, title = _flow(
            date=date,
            start=start,
            end=end,
            datasets=datasets,
            symbols=symbols,
            source=source,
            lake=lake,
            run_id=run_id,
            force=force,
            not_ready_retries=not_ready_retries,
            not_ready_delay=not_ready_delay,
            show_progress=show_progress,
        )
    from pitlake.lake.catalog import Catalog

    catalog = Catalog(lake_root=lake)
    try:
        run = catalog.run(run_id)
    finally:
        catalog.close()
    if run is None or not run.summary:
        raise RunWithoutSummary(run_id, state, run_log.path_if_written())
    summary = dict(run.summary)
    if run_log.path_if_written():
        summary["log"] = str(run_log.path)
    return summary, title


def _flow(
    *,
    date: str | None,
    start: str | None,
    end: str | None,
    datasets: list[str] | None,
    symbols: list[str] | None,
    source: str | None,
    lake: str,
    run_id: str,
    force: bool,
    not_ready_retries: int,
    not_ready_delay: float,
    show_progress: str,
) -> tuple[Any, str]:
    """Run the flow; its final state (the summary itself is read from the catalog)."""
    if start and end:
        from pitlake.flows.backfill import backfill

        title = f"pitlake backfill {start}..{end}"
        with ProgressView(show_progress, title):
            state = backfill(
                start=start,
                end=end,
                datasets=datasets,
                symbols=symbols,
                force=force,
                source=source,
                lake=lake,
                run_id=run_id,
                return_state=True,
            )
    else:
        from pitlake.flows.nightly import nightly

        title = f"pitlake nightly {date or '(latest closed session)'}"
        with ProgressView(show_progress, title):
            state = nightly(
                trade_date=date,
                datasets=datasets,
                symbols=symbols,
                source=source,
                lake=lake,
                run_id=run_id,
                not_ready_retries=not_ready_retries,
                not_ready_delay_seconds=not_ready_delay,
                return_state=True,
            )
    return state, title


class RunWithoutSummary(Exception):
    """The flow ended without recording its summary (the catalog failed under it)."""

    def __init__(self, run_id: str, state: Any, log: Path | None) -> None:
        ended = f"{state.type.value}: {state.message}" if state is not None else "no state"
        where = f"; traceback in {log}" if log else ""
        super().__init__(f"run {run_id} recorded no summary (the flow ended {ended}){where}")


class IngestLog:
    """While a run goes, warnings and tracebacks go to <lake>/logs/ingest-<run_id>.log; the
    terminal keeps each record's one line, without its traceback (all of it with --verbose).
    A lake on object storage has no such directory: its tracebacks stay on the terminal."""

    def __init__(self, lake: str, run_id: str, *, verbose: bool = False) -> None:
        from pitlake.lake.fs import is_url

        self.path = None if is_url(lake) else Path(lake) / LOGS_DIR / f"ingest-{run_id}.log"
        self.verbose = verbose
        self._handler: logging.Handler | None = None
        self._wrapped: list[tuple[logging.Handler, Any]] = []

    def path_if_written(self) -> Path | None:
        return self.path if self.path is not None and self.path.exists() else None

    def __enter__(self) -> IngestLog:
        if self.path is None:
            return self
        importlib.import_module("pitlake.flows")  # pitlake's Prefect settings before Prefect
        from prefect.logging.configuration import ensure_logging_setup

        # Prefect's console handler must exist before ours: set up later, Prefect would take
        # our file handler for the user's own logging and leave the terminal without its own.
        ensure_logging_setup()
        root = logging.getLogger()
        self._handler = logging.FileHandler(self.path, delay=True, encoding="utf-8")
        self._handler.setLevel(logging.WARNING)
        self._handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s")
        )
        if not self.verbose:
            for h in root.handlers:
                if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler):
                    self._wrapped.append((h, h.format))
                    h.format = self._one_line(h.format)  # type: ignore[method-assign]
        root.addHandler(self._handler)
        return self

    def _one_line(self, fmt: Any) -> Any:
        def format(record: logging.LogRecord) -> str:
            if not (record.exc_info or record.exc_text or record.stack_info):
                return fmt(record)
            saved = record.exc_info, record.exc_text, record.stack_info
            record.exc_info, record.exc_text, record.stack_info = None, None, None
            try:
                return f"{fmt(record)} (traceback in {self.path})"
            finally:
                record.exc_info, record.exc_text, record.stack_info = saved

        return format

    def __exit__(self, *exc: object) -> None:
        for h, fmt in self._wrapped:
            h.format = fmt  # type: ignore[method-assign]
        self._wrapped.clear()
        if self._handler is not None:
            logging.getLogger().removeHandler(self._handler)
            self._handler.close()
            self._handler = None


def dq(
    lake: Annotated[
        str | None, typer.Option(help="Lake directory ($PITLAKE_HOME, ./lake).")
    ] = None,
) -> None:
    """Rebuild the Data Docs site under <lake>/dq/ from the catalog's validation results."""
    from pitlake.expectations.datadocs import rebuild_data_docs

    path = rebuild_data_docs(_lake(lake))
    typer.echo(f"Data Docs: {path}")


def register(app: typer.Typer) -> None:
    app.command()(ingest)
    app.command()(dq)
