"""`pitlake query`, `pitlake serve`, `pitlake mcp`: the query API on the command line, over
HTTP and over MCP (stdio). All three answer through `pitlake.serve.api.service.QueryService`,
so they print the same envelope; `query`'s options are generated from the query models
(query_options.py).

At module level only typer and the dataset specs (for the options) are imported: `pitlake
--help` and `pitlake query` must not pay for FastAPI, Prefect or Great Expectations.
"""

from __future__ import annotations

import errno
import json
import os
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pitlake.commands import console as terminal
from pitlake.commands import query_options as options
from pitlake.home import lake_root
from pitlake.serve.api.params import QUERY_DATASETS
from pitlake.statuses import BENIGN_ANSWER

if TYPE_CHECKING:
    from pitlake.serve.api.service import Answer, QueryService

# Exit codes of `pitlake query` (also in its --help; the table in the README).
EXIT_OK = 0  # OK, NO_DATA; status: no dataset past the staleness threshold
EXIT_INVALID = 2  # INVALID_ARGUMENTS (also typer's own usage errors)
# NOT_READY, UPSTREAM_ERROR, RATE_LIMITED, PERMISSION_DENIED, NOT_CONFIGURED, UNKNOWN; status: a
# dataset more than $PITLAKE_STALE_SESSIONS sessions behind, or never fetched
EXIT_NOT_OK = 3
EXIT_FAULT = 4  # the lake could not answer (not a lake, unreadable file or catalog, internal)
EXIT_LAKE = 5  # `pitlake serve`: the address cannot be served (port in use, unknown host)

MAX_TABLE_ROWS = 50
# `pitlake serve`: how long a SIGTERM waits for open connections after interrupting SQL
SHUTDOWN_S = 5
WIDE_COLUMNS = 8  # more columns than this, and at most TRANSPOSE_ROWS rows: print transposed
TRANSPOSE_ROWS = 4
MAX_CELL = 60
HIDDEN_COLUMNS = ("known_at_basis", "ingested_at", "run_id", "content", "url", "source")

QUERY_HELP = (
    "Ask the lake what was known as of a cutoff; prints the answer envelope.\n\n"
    f"DATASET is one of: {', '.join(d.replace('_', '-') for d in QUERY_DATASETS)}.\n\n"
    f"Exit codes: {EXIT_OK} OK or NO_DATA; {EXIT_INVALID} INVALID_ARGUMENTS; {EXIT_NOT_OK} "
    "NOT_READY, UPSTREAM_ERROR, RATE_LIMITED, PERMISSION_DENIED, NOT_CONFIGURED or UNKNOWN, "
    "or (status) a dataset more than $PITLAKE_STALE_SESSIONS (default 1) sessions behind or "
    f"never fetched; {EXIT_FAULT} the lake could not answer (not a lake, an unreadable file "
    "or catalog)."
)


def default_lake() -> str:
    """--lake default: $PITLAKE_HOME, else ./lake."""
    return lake_root()


def exit_code(answer: Answer) -> int:
    """The documented exit code of an answer; a freshness answer listing a stale dataset is
    not OK for cron and monitoring (EXIT_NOT_OK)."""
    from pitlake.statuses import ResultStatus

    if answer.fault is not None:
        return EXIT_FAULT
    if answer.status is ResultStatus.INVALID_ARGUMENTS:
        return EXIT_INVALID
    if answer.ok and answer.envelope["meta"].get("stale"):
        return EXIT_NOT_OK
    return EXIT_OK if answer.ok else EXIT_NOT_OK


def _invalid(message: str) -> Answer:
    from pitlake.envelope import Result
    from pitlake.serve.api.service import Answer

    return Answer(Result.invalid(message).to_dict())


def run_query(service: QueryService, dataset: str, opts: dict[str, Any]) -> Answer:
    """Dispatch one CLI query (options already collected) to the service."""
    from pitlake.errors import InvalidArgumentsError
    from pitlake.serve.api import surfaces
    from pitlake.serve.api.params import dataset_name

    try:
        name = dataset_name(dataset)
    except InvalidArgumentsError as e:
        return _invalid(str(e))
    given = {k for k, v in opts.items() if v not in ([], ()) and v != options.DEFAULTS.get(k)}
    extra = sorted(given - options.APPLIES[name])
    if extra:
        flags = ", ".join(options.flag(k) for k in extra)
        return _invalid(f"{flags} do(es) not apply to {name.replace('_', '-')}")
    if name == options.SNAPSHOT:
        return service.snapshot(
            opts["symbols"], datasets=opts["datasets"], date=opts["date"], as_of=opts["as_of"]
        )
    if name == options.STATUS:
        return service.status(as_of=opts["as_of"])
    if name in surfaces.DERIVED:  # service.market / service.limits, the model's parameters
        return getattr(service, name)(**{k: opts[k] for k in options.APPLIES[name]})
    spec = surfaces.by_name(name)
    return service.read(spec, **{k: opts[k] for k in options.APPLIES[name]})


# ---------------------------------------------------------------- readable output


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:,.4f}".rstrip("0").rstrip(".") if abs(value) < 1e15 else f"{value:.4g}"
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _print_envelope(console: Any, env: dict[str, Any], title: str | None = None) -> None:
    from rich.table import Table
    from rich.text import Text

    ok = env["status"] in BENIGN_ANSWER
    head = Text()
    if title:
        head.append(f"[{title}] ", style="bold")
    head.append(env["status"], style="bold green" if ok else "bold red")
    head.append(
        f"  requested {env['requested_date'] or '-'}"
        f"  effective {env['effective_trade_date'] or '-'} ({env['date_status']})"
        f"  as_of {env['as_of'] or '-'}  source {env['source'] or '-'}"
        f"  rows {env['meta'].get('rows', len(env['data']))}"
        + ("  retryable" if env.get("retryable") else "")
        + ("  pinned" if env["meta"].get("pinned") else "")
    )
    console.print(head)
    if env["message"]:
        console.print(Text(env["message"]), style="dim")
    rows = env["data"]
    if not rows:
        return
    columns = [
        c
        for c in dict.fromkeys(k for row in rows for k in row)
        if c not in HIDDEN_COLUMNS and any(row.get(c) not in (None, "", []) for row in rows)
    ]
    shown = rows[:MAX_TABLE_ROWS]
    if len(columns) > WIDE_COLUMNS and len(shown) <= TRANSPOSE_ROWS:
        # Few rows, many fields: one line per field reads better than a squeezed table.
        table = Table(show_header=True, header_style="bold")
        table.add_column("field")
        for i in range(len(shown)):
            table.add_column(str(i + 1), overflow="fold")
        for c in columns:
            table.add_row(Text(c), *(Text(_cell(row.get(c))) for row in shown))
    else:
        table = Table(show_header=True, header_style="bold")
        for c in columns:
            table.add_column(Text(c), overflow="fold")
        for row in shown:
            table.add_row(*(Text(_cell(row.get(c))) for c in columns))  # data, never markup
    console.print(table)
    if len(rows) > MAX_TABLE_ROWS:
        console.print(f"… {len(rows) - MAX_TABLE_ROWS} more rows (use --json for all)")


def print_readable(env: dict[str, Any]) -> None:
    console = terminal()
    if (
        env["data"]
        and all("dataset" in s and "status" in s for s in env["data"])
        and ("aligned" in env["meta"])
    ):
        _print_envelope(console, {**env, "data": []}, title="snapshot")
        for section in env["data"]:
            _print_envelope(console, section, title=section["dataset"])
        return
    _print_envelope(console, env)


# ---------------------------------------------------------------- commands


def _query(dataset: str, *, lake: str | None, as_json: bool, **opts: Any) -> None:
    root = lake or default_lake()
    opts = {k: (v or None) if isinstance(v, list) else v for k, v in opts.items()}
    from pitlake.errors import NotALakeError
    from pitlake.serve.api.faults import Fault, fault_envelope
    from pitlake.serve.api.service import Answer, QueryService

    service = QueryService(root)
    try:
        service.require_lake()
        answer = run_query(service, dataset, opts)
    except NotALakeError as e:  # nothing was created there; exit 4 with the envelope
        answer = Answer(fault_envelope(Fault.NOT_A_LAKE, e), Fault.NOT_A_LAKE)
    finally:
        service.close()
    env = answer.public()
    if as_json:
        typer.echo(json.dumps(env, ensure_ascii=False, indent=2))
    else:
        print_readable(env)
    raise typer.Exit(exit_code(answer))


query = options.with_options(_query)  # DATASET and one option per query model field
query.__doc__ = QUERY_HELP


def _check_serving_args(lake: str, as_of: str | None, pins: list[str]) -> None:
    """Refuse to start on bad pins (exit 2) or on a path that is not a lake (exit 4, one line:
    serving never creates a catalog)."""
    from pitlake.errors import InvalidArgumentsError, NotALakeError
    from pitlake.pit import parse_cutoff
    from pitlake.serve.api.params import pin_table
    from pitlake.serve.api.service import QueryService

    service = QueryService(lake)
    try:
        service.require_lake()
    except NotALakeError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_FAULT) from None
    finally:
        service.close()
    try:
        if as_of is not None:
            parse_cutoff(as_of)
        pin_table(pins)
    except InvalidArgumentsError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(EXIT_INVALID) from None


def serve(
    lake: Annotated[
        str | None,
        typer.Option(help="Lake directory or s3:// URL (default: $PITLAKE_HOME, else ./lake)."),
    ] = None,
    host: Annotated[str, typer.Option(help="Bind address (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="Pin every request to this cutoff (later as_of clamped)."),
    ] = None,
    allow_pin: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-pin",
            help="NAME=T: a pin requests may choose with the X-Pitlake-Pin header (repeatable).",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            help="A Host name to answer besides localhost, 127.0.0.1, ::1 and --host "
            "(repeatable; also $PITLAKE_ALLOWED_HOSTS, comma-separated; '*' for any).",
        ),
    ] = None,
    sql_timeout: Annotated[
        float | None,
        typer.Option(help="SQL statement timeout in seconds (default 30; $PITLAKE_SQL_TIMEOUT)."),
    ] = None,
    sql_max_rows: Annotated[
        int | None,
        typer.Option(help="Rows a SQL answer may hold (default 1,000,000; $PITLAKE_SQL_MAX_ROWS)."),
    ] = None,
    sql_max_bytes: Annotated[
        int | None,
        typer.Option(help="Arrow bytes a SQL answer may hold (default 256 MiB)."),
    ] = None,
    sql_concurrency: Annotated[
        int | None,
        typer.Option(help="SQL statements run at once (default 2; $PITLAKE_SQL_CONCURRENCY)."),
    ] = None,
) -> None:
    """Serve the HTTP query API (FastAPI; OpenAPI at /openapi.json, docs at /docs).

    Set PITLAKE_API_TOKEN to require 'Authorization: Bearer <token>' on every path but /healthz.
    """
    root = lake or default_lake()
    pins = allow_pin or []
    _check_serving_args(root, as_of, pins)
    _set_sql_limits(sql_timeout, sql_max_rows, sql_max_bytes, sql_concurrency)
    _check_port_free(host, port)
    import uvicorn

    from pitlake.serve.api.app import create_app
    from pitlake.serve.api.auth import ENV_TOKEN
    from pitlake.serve.api.redact import install_log_redaction

    if host not in ("127.0.0.1", "localhost", "::1") and not os.environ.get(ENV_TOKEN):
        typer.echo(
            f"warning: serving on {host} without a token; set {ENV_TOKEN} to require one",
            err=True,
        )
    from pitlake.serve.api.origins import serving_hosts

    hosts = serving_hosts(host, allow_host or [])
    app = create_app(root, as_of_pin=as_of, allowed_pins=pins, allowed_hosts=hosts)
    from pitlake.read.sql_limits import interrupt_all

    class Server(uvicorn.Server):
        """uvicorn's server, which on SIGTERM/SIGINT also interrupts the running SQL
        statements: it otherwise waits for them ("waiting for background tasks")."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            interrupt_all()

    config = uvicorn.Config(
        app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=SHUTDOWN_S
    )
    install_log_redaction("pitlake.api", "uvicorn", "uvicorn.error", "uvicorn.access")
    Server(config).run()


def _set_sql_limits(
    timeout: float | None, max_rows: int | None, max_bytes: int | None, concurrency: int | None
) -> None:
    """The serve options as the environment sql_limits reads (an option beats the variable)."""
    from pitlake.read import sql_limits as sl

    for env, value in (
        (sl.TIMEOUT_ENV, timeout),
        (sl.MAX_ROWS_ENV, max_rows),
        (sl.MAX_BYTES_ENV, max_bytes),
        (sl.CONCURRENCY_ENV, concurrency),
    ):
        if value is not None:
            os.environ[env] = str(value)


def _check_port_free(host: str, port: int) -> None:
    """One line and exit 5 when the address cannot be bound (uvicorn would log a traceback-ish
    error and exit 3, which means "answer not OK")."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        typer.echo(f"error: cannot serve on {host}:{port}: {e}", err=True)
        raise typer.Exit(EXIT_LAKE) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as e:
            why = "the port is in use" if e.errno == errno.EADDRINUSE else e.strerror
            typer.echo(f"error: cannot serve on {host}:{port}: {why}", err=True)
            raise typer.Exit(EXIT_LAKE) from None


def mcp(
    lake: Annotated[
        str | None,
        typer.Option(help="Lake directory or s3:// URL (default: $PITLAKE_HOME, else ./lake)."),
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="Pin every tool call to this cutoff (later as_of clamped)."),
    ] = None,
) -> None:
    """Serve the query tools over MCP (stdio).

    The as-of is pinned by --as-of, never by a tool argument the model fills.
    """
    root = lake or default_lake()
    _check_serving_args(root, as_of, [])
    from pitlake.serve.api.redact import install_log_redaction
    from pitlake.serve.mcp import create_server

    install_log_redaction("pitlake.api", "fastmcp", "mcp")
    server = create_server(root, as_of_pin=as_of)
    print("pitlake MCP server on stdio", file=sys.stderr)
    server.run(transport="stdio", show_banner=False)


def register(app: typer.Typer) -> None:
    app.command("query", help=QUERY_HELP)(query)
    app.command("serve")(serve)
    app.command("mcp")(mcp)
