"""`pitlake vendors check`: the live canary (pitlake.vendors.canary) as a table or JSON.

Exit status (the CLI's codes, pitlake/cli.py): 0 when every endpoint answered as expected (no
rows, a denied endpoint and a vendor without a token are reported, not failures); 3 when an
answer drifted (columns, units, a function akshare no longer has, an answer that cannot be read);
5 when a vendor could not be reached at all (no network) and nothing drifted; 2 for bad
arguments.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from pitlake.commands import console

EXIT_INVALID = 2
EXIT_DRIFT = 3  # "an answer that is not OK"
EXIT_UNREACHABLE = 5  # "the environment lacks something (… no network)"

app = typer.Typer(
    name="vendors",
    help="Check the vendors pitlake calls (run after upgrading akshare or changing tokens).",
    no_args_is_help=True,
)

_STYLE = {
    "ok": "green",
    "no rows": "green",
    "denied": "yellow",
    "rate limited": "yellow",
    "unreachable": "red",
    "drift": "red",
    "error": "red",
}


def _yes_no(v: bool | None) -> str:
    return "—" if v is None else ("yes" if v else "[red]no[/red]")


def _judged(v: str | None) -> str:
    from rich.markup import escape

    if v is None:
        return "—"
    return v if v == "ok" else f"[red]{escape(v[:60])}[/red]"


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _print(checks: list[Any], session: str, symbol: str) -> None:
    from rich.markup import escape
    from rich.table import Table

    out = console()
    for c in checks:
        if c.state != "ok":  # one line, never wrapped: it is what a log or CI job shows
            typer.echo(f"{c.vendor}: {c.state} — {_one_line(c.message)}")
            continue
        table = Table(
            title=f"{c.vendor}: {session}, {symbol}", title_justify="left", show_lines=False
        )
        for col in ("endpoint", "dataset", "status", "reachable", "permission", "columns"):
            table.add_column(col, overflow="fold")
        for col in ("units", "latency ms", "rows", "message"):
            table.add_column(col, overflow="fold", justify="right" if col != "message" else None)
        for p in c.probes:
            style = _STYLE.get(p.status, "white")
            table.add_row(
                p.endpoint,
                p.dataset,
                f"[{style}]{p.status}[/{style}]",
                _yes_no(p.reachable),
                _yes_no(p.permission),
                _judged(p.columns),
                _judged(p.units),
                "—" if p.latency_ms is None else f"{p.latency_ms:.0f}",
                str(p.rows),
                "" if p.status == "ok" else escape(p.message[:120]),
            )
        out.print(table)


@app.command("check")
def check(
    vendors: Annotated[
        str | None,
        typer.Option(
            "--vendors", help="Comma-separated vendors to check (default: every registered one)."
        ),
    ] = None,
    date: Annotated[
        str | None, typer.Option("--date", help="Session to ask about (default: the last one).")
    ] = None,
    symbol: Annotated[str, typer.Option(help="A listed symbol to ask about.")] = "600519.SH",
    timeout: Annotated[float, typer.Option(help="Seconds one call may take.")] = 20.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """One live call per endpoint: reachable, permitted, columns as expected, units
    plausible, latency. Exits 3 on drift, 5 if a vendor cannot be reached."""
    from pitlake.calendar import to_date
    from pitlake.errors import InvalidArgumentsError
    from pitlake.symbols import canonical
    from pitlake.vendors import canary
    from pitlake.vendors.router import KNOWN_VENDORS

    try:
        names = (
            [v.strip() for v in vendors.split(",") if v.strip()]
            if vendors is not None
            else list(KNOWN_VENDORS)
        )
        unknown = [v for v in names if v not in KNOWN_VENDORS]
        if unknown or not names:
            raise InvalidArgumentsError(
                f"unknown vendor(s) {unknown}; expected any of {', '.join(KNOWN_VENDORS)}"
            )
        session = to_date(date) if date else canary.recent_session()
        sym = canonical(symbol)
    except InvalidArgumentsError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(EXIT_INVALID) from None
    checks = [
        canary.check_vendor(adapter, session=session, symbol=sym, where=where)
        for adapter, where in canary.canary_adapters(names, timeout=timeout).values()
    ]
    if as_json:
        payload = {
            "session": session.isoformat(),
            "symbol": sym,
            "drift": canary.drifted(checks),
            "unreachable": canary.unreachable(checks),
            "vendors": [c.to_dict() for c in checks],
        }
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2, default=str))
    else:
        _print(checks, session.isoformat(), sym)
    if canary.drifted(checks):
        raise typer.Exit(EXIT_DRIFT)
    if canary.unreachable(checks):
        raise typer.Exit(EXIT_UNREACHABLE)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="vendors")
