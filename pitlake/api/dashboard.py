"""The data-quality dashboard (`/dashboard`), its JSON (`/dashboard/data.json`) and the Data
Docs site (`/dq/`), served by `pitlake serve` through `create_app`'s optional-router hook.

The content comes from `pitlake.dashboard_data` (plain Python); this module only renders it.
Everything is server-side HTML and SVG plus one small bundled script and stylesheet (the grid's
click-to-expand panel): no CDN, no external URL, so it works offline. A Content-Security-Policy
header holds the page to that. Every answer passes through the API's secret redaction.
"""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response

from pitlake.dashboard_data import STYLE_OF, build_dashboard
from pitlake.errors import InvalidArgumentsError
from pitlake.lake.catalog import Catalog
from pitlake.serve.api.redact import redact_obj
from pitlake.statuses import RUN_DONE, ResultStatus

STATIC_DIR = Path(__file__).with_name("static")
STATIC_FILES: dict[str, str] = {
    "dashboard.css": "text/css; charset=utf-8",
    "dashboard.js": "text/javascript; charset=utf-8",
}
# The dashboard loads only its own stylesheet and script; inline SVG needs no source.
PAGE_CSP = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
# Data Docs pages carry their CSS inline and no scripts.
DQ_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
DQ_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
}

router = APIRouter(tags=["dashboard"])
_catalog_lock = threading.Lock()

AsOf = Query(
    None,
    max_length=64,
    description="Reference instant: YYYY-MM-DD (end of that Beijing day) or an ISO-8601 "
    "timestamp. Lag is measured against the latest session closed by then. Default: now.",
)


# ---------------------------------------------------------------- app state


def _lake_path(request: Request) -> Path:
    return Path(request.app.state.lake_path)


def _catalog(request: Request) -> Catalog:
    """The app's catalog (`create_app` sets it); else one opened once on the lake."""
    state = request.app.state
    cat = getattr(state, "catalog", None)
    if cat is None:
        with _catalog_lock:
            cat = getattr(state, "dashboard_catalog", None)
            if cat is None:
                cat = Catalog(lake_root=_lake_path(request), read_only=True)
                state.dashboard_catalog = cat
    return cat


def _now_and_pin(request: Request) -> tuple[datetime | None, datetime | None]:
    service = getattr(request.app.state, "service", None)
    if service is None:
        return None, None
    return service.now(), getattr(service, "base_pin", None)


def dashboard_content(request: Request, as_of: str | None) -> dict[str, Any]:
    now, pin = _now_and_pin(request)
    data = build_dashboard(
        _catalog(request), lake_root=_lake_path(request), as_of=as_of, now=now, pin=pin
    )
    return redact_obj(data)


# ---------------------------------------------------------------- routes


BAD_AS_OF = {400: {"description": "INVALID_ARGUMENTS: an unreadable or out-of-range as_of"}}


@router.get(
    "/dashboard",
    response_class=HTMLResponse,
    summary="Data-quality dashboard",
    responses=BAD_AS_OF,
)
def dashboard(request: Request, as_of: str | None = AsOf) -> Response:
    """Freshness, coverage grid, validation pass rates, quarantine and runs (HTML)."""
    try:
        data = dashboard_content(request, as_of)
    except InvalidArgumentsError as e:
        return _html(render_error(str(e)), status=400)
    return _html(render_page(data))


@router.get("/dashboard/data.json", summary="The dashboard's content as JSON", responses=BAD_AS_OF)
def dashboard_json(request: Request, as_of: str | None = AsOf) -> Response:
    """Exactly what /dashboard renders. An empty lake answers `empty: true` and empty lists."""
    try:
        data = dashboard_content(request, as_of)
    except InvalidArgumentsError as e:
        return JSONResponse(
            {"error": ResultStatus.INVALID_ARGUMENTS.value, "message": str(e)},
            400,
            headers=SECURITY_HEADERS,
        )
    return JSONResponse(data, headers=SECURITY_HEADERS)


@router.get("/dashboard/static/{name}", include_in_schema=False)
def dashboard_static(name: str) -> Response:
    """The bundled stylesheet and script (a fixed list: nothing else is reachable)."""
    if name not in STATIC_FILES:
        return Response("not found", 404, media_type="text/plain")
    return Response(
        _static_bytes(name),
        media_type=STATIC_FILES[name],
        headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"},
    )


@cache
def _static_bytes(name: str) -> bytes:
    return (STATIC_DIR / name).read_bytes()


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response:
    """No icon (204): browsers ask for one on every page, the Data Docs' included, and a 404
    would show up as a console error."""
    return Response(status_code=204, headers={"Cache-Control": "max-age=86400"})


@router.get("/dq", include_in_schema=False)
def data_docs_root() -> Response:
    return RedirectResponse("/dq/", status_code=307)


@router.get(
    "/dq/{path:path}",
    summary="Data Docs (static site under <lake>/dq/)",
    response_class=HTMLResponse,
    responses={404: {"description": "No such file inside <lake>/dq/ (or no Data Docs yet)"}},
)
def data_docs(request: Request, path: str) -> Response:
    """Files of `<lake>/dq/` only: a path that resolves outside it (.., symlinks, absolute
    paths) is 404, as is any file type a static site does not need."""
    root = (_lake_path(request) / "dq").resolve()
    target = resolve_inside(root, path)
    if target is not None and target.is_dir():
        target = target / "index.html"
    if target is None or not target.is_file() or target.suffix.lower() not in DQ_TYPES:
        if not path and not (root / "index.html").is_file():
            return _html(render_no_docs(), status=404)
        return Response("not found", 404, media_type="text/plain", headers=SECURITY_HEADERS)
    return FileResponse(
        target,
        media_type=DQ_TYPES[target.suffix.lower()],
        headers={**SECURITY_HEADERS, "Content-Security-Policy": DQ_CSP},
    )


def resolve_inside(root: Path, path: str) -> Path | None:
    """`root/path` if it stays inside `root` after resolving '..' and symlinks, else None."""
    if "\x00" in path or "\\" in path:
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(p == ".." or p.startswith(".") for p in parts):
        return None
    try:
        target = root.joinpath(*parts).resolve()
    except (OSError, ValueError):
        return None
    return target if target == root or target.is_relative_to(root) else None


def _html(body: str, *, status: int = 200, csp: str = PAGE_CSP) -> HTMLResponse:
    return HTMLResponse(body, status, headers={**SECURITY_HEADERS, "Content-Security-Policy": csp})


# ---------------------------------------------------------------- rendering helpers


def esc(value: Any) -> str:
    """Escaped text. '://' becomes '&#58;//' so a URL inside data is shown as text, never
    becomes something a browser could follow or load."""
    if value is None:
        return ""
    return html.escape(str(value), quote=True).replace("://", "&#58;//")


def _pct(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:.1f} %".replace(".0 %", " %")


def _json_for_script(value: Any) -> str:
    """JSON safe inside a <script type="application/json"> element."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def when(iso: str | None) -> str:
    """An ISO instant as people read it: '2025-06-12 15:00:00 +08:00' (no microseconds);
    the end of a Beijing day reads '2025-06-12 end of day (+08:00)'."""
    if not iso:
        return ""
    try:
        at = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if (at.hour, at.minute, at.second) == (23, 59, 59) and at.microsecond == 999_999:
        return f"{at.date()} end of day ({at.strftime('%z')[:3]}:{at.strftime('%z')[3:]})"
    offset = at.strftime("%z")
    return at.strftime("%Y-%m-%d %H:%M:%S") + (f" {offset[:3]}:{offset[3:]}" if offset else "")


def _link(as_of: str | None, path: str = "/dashboard") -> str:
    return path + ("?" + urlencode({"as_of": as_of}) if as_of else "")


STATE_TEXT = {
    "current": ("✓", "current"),
    "within": ("◐", "within threshold"),
    "stale": ("✗", "stale"),
    "never": ("—", "never fetched"),
}


def _chip(status: str | None, text: str) -> str:
    status = status or "NEVER"
    kind = "good" if status in RUN_DONE else "bad"
    code = STYLE_OF[status].code if status in STYLE_OF else "?"
    return f'<span class="chip chip-{kind}" title="{esc(status)}">{esc(code)} {esc(text)}</span>'


# ---------------------------------------------------------------- page


def render_page(d: Mapping[str, Any]) -> str:
    ref = d["reference"]
    parts = [_reference_bar(d)]
    parts += [f'<p class="note">{esc(n)}</p>' for n in ref.get("notes") or []]
    if d["empty"]:
        parts.append(_empty_state(d))
    else:
        parts += [
            f'<section id="{name}">{body}</section>'
            for name, body in (
                ("freshness", _freshness(d)),
                ("coverage", _coverage(d)),
                ("validation", _validation(d)),
                ("quarantine", _quarantine(d["quarantine"])),
                ("runs", _runs(d["runs"])),
            )
        ]
    json_link = _link(ref["as_of"] if ref["source"] == "as_of" else None, "/dashboard/data.json")
    parts.append(
        f"<footer>Generated {esc(when(d['generated_at']))} from the lake's catalog. "
        f'Same content as JSON: <a href="{esc(json_link)}">data.json</a>.</footer>'
    )
    return _document("pitlake · data quality", "".join(parts), d)


def _document(title: str, body: str, d: Mapping[str, Any] | None = None) -> str:
    script = ""
    if d is not None and not d.get("empty"):
        cells = {"legend": d["legend"], "rows": d["coverage"]["rows"]}
        script = (
            f'<script type="application/json" id="coverage-data">{_json_for_script(cells)}'
            '</script><script src="/dashboard/static/dashboard.js" defer></script>'
        )
    nav = "".join(
        f'<a href="{href}">{label}</a>'
        for href, label in (
            ("#freshness", "Freshness"),
            ("#coverage", "Coverage"),
            ("#validation", "Validation"),
            ("#quarantine", "Quarantine"),
            ("#runs", "Runs"),
            ("/dq/", "Data Docs"),
            ("/dashboard/data.json", "JSON"),
        )
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)}</title><link rel="icon" href="data:,">'
        '<link rel="stylesheet" href="/dashboard/static/dashboard.css"></head><body>'
        f'<header class="top"><h1><a href="/dashboard" class="home">pitlake</a> · data quality'
        f"</h1><nav>{nav}</nav></header><main>{body}</main>{script}</body></html>"
    )


def _reference_bar(d: Mapping[str, Any]) -> str:
    ref = d["reference"]
    source = {
        "as_of": "from ?as_of",
        "now": "now (set ?as_of= to look back)",
        "pin": "the server's pin",
    }.get(ref["source"], ref["source"])
    value = ref["as_of_date"] if ref["source"] == "as_of" else ""
    return (
        '<section class="reference" aria-label="reference date">'
        f'<span>Reference: <b id="reference-as-of">{esc(when(ref["as_of"]))}</b> '
        f'<span class="muted">({esc(source)})</span></span>'
        f'<span>Latest closed session: <b id="reference-session">'
        f"{esc(ref['latest_closed_session'])}</b></span>"
        f"<span>Stale after <b>{esc(d['stale_sessions'])}</b> session(s) behind "
        f'<span class="muted">(<code>{esc(d["stale_env"])}</code>)</span></span>'
        '<form method="get" action="/dashboard"><label for="as-of-input">as of</label>'
        f'<input id="as-of-input" name="as_of" type="date" value="{esc(value)}">'
        '<button type="submit">Show</button><a class="button" href="/dashboard">Now</a></form>'
        "</section>"
    )


def _empty_state(d: Mapping[str, Any]) -> str:
    cmds = "".join(
        f'<p>{esc(c["what"])}:</p><pre class="cmd">{esc(c["command"])}</pre>'
        for c in d["first_ingest"]
    )
    return (
        '<section class="empty-state" id="empty-state"><h2>Nothing ingested yet</h2>'
        "<p>This lake has no runs and no ledger entries, so there is no freshness, coverage or "
        "validation to show. Run a first ingest, then reload this page:</p>"
        f"{cmds}<p>Then serve it again with <code>pitlake serve --lake DIR</code> (or just "
        "reload): freshness per dataset, the coverage grid, validation pass rates, quarantined "
        "batches and recent runs appear here, and the Data Docs under "
        '<a href="/dq/">/dq/</a>.</p></section>'
    )


def _freshness(d: Mapping[str, Any]) -> str:
    rows = []
    for f in d["freshness"]:
        symbol, word = STATE_TEXT[f["state"]]
        if f["state"] in ("within", "stale"):
            word += f" (threshold {f['threshold']})"
        lag = "—" if f["lag_sessions"] is None else str(f["lag_sessions"])
        last = ""
        if f["last_attempt"]:
            last = f"{esc(f['last_attempt'])} {_chip(f['last_attempt_status'], f['last_attempt_status'] or '')}"
            if f["last_attempt_status"] not in RUN_DONE and f["last_attempt_message"]:
                last += f'<div class="small muted">{esc(f["last_attempt_message"])}</div>'
        rows.append(
            f'<tr data-dataset="{esc(f["dataset"])}" data-state="{esc(f["state"])}">'
            f"<th>{esc(f['dataset'])}</th>"
            f"<td>{esc(f['latest_ok'] or '—')}</td>"
            f"<td>{esc(f['latest_closed_session'])}</td>"
            f'<td class="num lag">{lag}</td>'
            f'<td><span class="state state-{esc(f["state"])}">{symbol} {esc(word)}</span></td>'
            f"<td>{last}</td></tr>"
        )
    return (
        "<h2>Freshness</h2>"
        '<p class="muted small">Latest successful fetch (OK or NO_DATA) per dataset against the '
        "latest XSHG session closed at the reference; lag counts sessions, not days.</p>"
        '<table class="data" id="freshness-table"><thead><tr><th>Dataset</th>'
        "<th>Latest OK</th><th>Latest closed session</th>"
        '<th class="num">Lag (sessions)</th><th>State</th><th>Last attempt</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _legend(legend: Iterable[Mapping[str, str]]) -> str:
    items = "".join(
        f'<li><span class="swatch st-{esc(s["status"])}" aria-hidden="true">{esc(s["code"])}</span>'
        f"<span><b>{esc(s['code'])}</b> {esc(s['label'])}</span></li>"
        for s in legend
    )
    return f'<ul class="legend" id="legend" aria-label="status legend">{items}</ul>'


def _cell_title(dataset: str, c: Mapping[str, Any]) -> str:
    style = STYLE_OF.get(c["status"])
    lines = [f"{dataset} · {c['date']} · {c['status']} ({style.label if style else ''})"]
    if c["status"] == "NEVER":
        lines.append(c.get("message") or "")
        return "\n".join(lines)
    vendor = c.get("vendor") or ", ".join(c.get("vendors") or []) or "—"
    lines.append(f"rows: {c.get('rows', 0)} · vendor: {vendor}")
    if c.get("symbols"):
        lines.append("symbols: " + ", ".join(f"{k} {v}" for k, v in c["symbols"].items()))
    if c.get("trace_text"):
        lines.append(f"trace: {c['trace_text']}")
    if c.get("message"):
        lines.append(f"message: {c['message']}")
    if c.get("run_id"):
        lines.append(f"run: {c['run_id']}")
    return "\n".join(lines)


def _month_header(sessions: Sequence[str]) -> str:
    groups: list[list[Any]] = []
    for s in sessions:
        month = s[:7]
        if groups and groups[-1][0] == month:
            groups[-1][1] += 1
        else:
            groups.append([month, 1])
    return "".join(
        f'<th class="month" colspan="{n}">{esc(m) if n >= 3 else ""}</th>' for m, n in groups
    )


def _coverage(d: Mapping[str, Any]) -> str:
    cov = d["coverage"]
    sessions = cov["sessions"]
    head = (
        f'<tr><th></th>{_month_header(sessions)}</tr><tr><th class="ds">session</th>'
        + "".join(f'<th class="day" title="{esc(s)}">{esc(s[8:])}</th>' for s in sessions)
        + "</tr>"
    )
    body = []
    for r_i, row in enumerate(cov["rows"]):
        ds = row["dataset"]
        note = "<small>per fetch window</small>" if row["keyed_by"] == "window" else ""
        cells = "".join(
            f'<td><button type="button" class="cell st-{esc(c["status"])}" '
            f'data-row="{r_i}" data-col="{c_i}" data-dataset="{esc(ds)}" '
            f'data-date="{esc(c["date"])}" data-status="{esc(c["status"])}" '
            f'title="{esc(_cell_title(ds, c))}" aria-label="{esc(ds)} {esc(c["date"])} '
            f'{esc(c["status"])}">{esc(c["code"])}</button></td>'
            for c_i, c in enumerate(row["cells"])
        )
        body.append(f'<tr data-dataset="{esc(ds)}"><th class="ds">{esc(ds)}{note}</th>{cells}</tr>')
    span = f"{sessions[0]} … {sessions[-1]}" if sessions else ""
    return (
        f"<h2>Coverage: the last {len(sessions)} sessions "
        f'<span class="muted small">({esc(span)})</span></h2>'
        f"{_legend(d['legend'])}"
        '<p class="muted small">Each cell is the ledger status of one dataset on one session '
        "(the most pressing one when several symbols or a fetch window end on it). Hover for the "
        "entry; click for details. Window datasets (financials, news, calendar) are recorded once "
        "per fetch window, on the window's last session.</p>"
        f'<div class="scroll"><table class="grid" id="coverage-grid"><thead>{head}</thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
        '<div class="detail" id="cell-detail" aria-live="polite">'
        '<span class="muted">Click a cell to see its rows, vendor, vendor trace and message.'
        "</span></div>"
    )


# ---------------------------------------------------------------- validation chart


def pass_rate_svg(dataset: str, points: Sequence[Mapping[str, Any]]) -> str:
    """A small server-side SVG: one 100 % column per day, split into the share of batches
    that passed (green), warned (amber, dotted) and were rejected (red, hatched), so the
    pass rate is the height of the green part, also legible in greyscale."""
    width, height = 400, 130
    left, right, top, bottom = 40, 8, 10, 26
    w, h = width - left - right, height - top - bottom
    slug = "".join(ch if ch.isalnum() else "-" for ch in dataset)
    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" aria-label="{esc(dataset)} validation pass rate per day">'
        f'<defs><pattern id="hatch-{slug}" width="5" height="5" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="5" height="5" class="reject"/>'
        '<line x1="0" y1="0" x2="0" y2="5" class="hatch"/></pattern>'
        f'<pattern id="dots-{slug}" width="4" height="4" patternUnits="userSpaceOnUse">'
        '<rect width="4" height="4" class="warn"/><circle cx="2" cy="2" r="0.9" class="dot"/>'
        "</pattern></defs>"
    ]
    for frac, label in ((1.0, "100%"), (0.5, "50%"), (0.0, "0%")):
        y = top + (1 - frac) * h
        out.append(
            f'<line class="gridline" x1="{left}" x2="{left + w}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text x="{left - 6}" y="{y + 3.5:.1f}" text-anchor="end">{label}</text>'
        )
    out.append(f'<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{top + h}"/>')
    if not points:
        out.append(
            f'<text class="none" x="{left + w / 2}" y="{top + h / 2}" text-anchor="middle">'
            "no validations yet</text></svg>"
        )
        return "".join(out)
    n = len(points)
    slot = w / n
    bar = max(2.0, min(22.0, slot * 0.7))
    centres = [left + (i + 0.5) * slot for i in range(n)]
    for x, p in zip(centres, points, strict=True):
        total = p["total"] or 1
        tip = (
            f"{p['date']}: {p['passed']} of {p['total']} batch(es) passed"
            + (f", {p['warned']} warned" if p["warned"] else "")
            + (f", {p['rejected']} rejected" if p["rejected"] else "")
        )
        parts = [f'<g data-date="{esc(p["date"])}"><title>{esc(tip)}</title>']
        y = top + h
        for key, fill in (
            ("passed", 'class="pass"'),
            ("warned", f'fill="url(#dots-{slug})"'),
            ("rejected", f'fill="url(#hatch-{slug})"'),
        ):
            seg = h * p[key] / total
            if seg <= 0:
                continue
            y -= seg
            parts.append(
                f'<rect {fill} x="{x - bar / 2:.1f}" y="{y:.1f}" width="{bar:.1f}" '
                f'height="{seg:.1f}"/>'
            )
        parts.append("</g>")
        out.append("".join(parts))
    out.append(f'<line class="axis" x1="{left}" x2="{left + w}" y1="{top + h}" y2="{top + h}"/>')
    ticks = [0, n - 1] if n > 1 else [0]
    if n >= 7:
        ticks.insert(1, n // 2)
    for i in ticks:
        anchor = "start" if i == 0 and n > 1 else "end" if i == n - 1 and n > 1 else "middle"
        x = centres[i] - (bar / 2 if anchor == "start" else -bar / 2 if anchor == "end" else 0)
        out.append(
            f'<text x="{x:.1f}" y="{top + h + 16}" text-anchor="{anchor}">'
            f"{esc(points[i]['date'])}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def _validation(d: Mapping[str, Any]) -> str:
    cards = []
    for v in d["validation"]["datasets"]:
        if v["failed_expectations"]:
            items = "".join(
                f"<li><code>{esc(f['name'])}</code> {esc(f['description'])}"
                + (
                    f" <span class='muted'>(column {esc(f['column'])})</span>"
                    if f["column"]
                    else ""
                )
                + f" — failed {f['failures']}×, {f['unexpected_rows']} row(s), "
                f"last {esc(f['last_date'])} <span class='muted small'>{esc(f['severity'])}, "
                f"run {esc(f['last_run'])}</span></li>"
                for f in v["failed_expectations"]
            )
            failed = f'<p><b>Failed expectations</b></p><ul class="failed">{items}</ul>'
        elif v["batches"]:
            failed = '<p class="muted">No expectation failed.</p>'
        else:
            failed = ""
        cards.append(
            f'<div class="card" data-dataset="{esc(v["dataset"])}"><div class="headline">'
            f"<h3>{esc(v['dataset'])}</h3><span>{_pct(v['rate'])} of {v['batches']} "
            f"batch(es) passed</span></div>{pass_rate_svg(v['dataset'], v['points'])}"
            f"{failed}</div>"
        )
    return (
        "<h2>Validation pass rate</h2>"
        f'<p class="muted small">{esc(d["validation"]["basis"])}. '
        "One column per day: green = passed every expectation, amber dotted = warnings "
        "(written, flagged), red hatched = rejected (quarantined). Full results in the "
        '<a href="/dq/">Data Docs</a>.</p>'
        f'<div class="cards">{"".join(cards)}</div>'
    )


# ---------------------------------------------------------------- quarantine and runs


def _quarantine(items: Sequence[Mapping[str, Any]]) -> str:
    if not items:
        return (
            '<h2>Quarantine</h2><p class="muted" id="quarantine-empty">'
            "No batch has been quarantined.</p>"
        )
    arts = []
    for q in items:
        exps = "".join(
            f"<li><code>{esc(f['name'])}</code> {esc(f['description'])}"
            + (f" (column {esc(f['column'])})" if f.get("column") else "")
            + (
                f" — {esc(f['unexpected_count'])} row(s)"
                if f.get("unexpected_count") is not None
                else ""
            )
            + "</li>"
            for f in q["failed_expectations"]
        )
        head = "".join(f"<th>{esc(c)}</th>" for c in q["sample_columns"])
        rows = "".join(
            "<tr>" + "".join(f"<td>{esc(v)}</td>" for v in r) + "</tr>" for r in q["sample_rows"]
        )
        sample = (
            f'<div class="scroll"><table class="data"><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table></div>"
            f'<p class="muted small">{len(q["sample_rows"])} of {q["sample_total"]} sample row(s)'
            f" kept in the catalog; the batch is at <code>{esc(q['path'])}</code>.</p>"
            if q["sample_rows"]
            else f'<p class="muted small">Batch at <code>{esc(q["path"])}</code>.</p>'
        )
        arts.append(
            f'<article data-dataset="{esc(q["dataset"])}" data-date="{esc(q["date"])}">'
            f"<h3>{esc(q['dataset'])} · {esc(q['date'] or 'no date')}</h3>"
            f"<p><b>Reason:</b> {esc(q['reason'])}</p>"
            f'<p class="small">Run <code>{esc(q["run_id"])}</code> · quarantined '
            f"{esc(when(q['recorded_at']))}</p>"
            f'<p><b>Failed expectations</b></p><ul class="failed">{exps}</ul>{sample}</article>'
        )
    return (
        f'<h2>Quarantine <span class="muted small">({len(items)} batch(es), '
        "newest first)"
        f'</span></h2><div class="quarantine" id="quarantine-list">{"".join(arts)}</div>'
    )


def _runs(items: Sequence[Mapping[str, Any]]) -> str:
    if not items:
        return '<h2>Recent runs</h2><p class="muted">No run recorded yet.</p>'
    rows = []
    for r in items:
        chips = " ".join(
            _chip(ds["status"], f"{ds['dataset']} {ds['status']}")
            + (
                f'<span class="muted small"> via {esc(", ".join(ds["vendors"]))}</span>'
                if ds["vendors"]
                else ""
            )
            for ds in r["datasets"]
        )
        failed = [
            f"<li>{esc(ds['dataset'])} {esc(u['date'])} <b>{esc(u['status'])}</b>: "
            f"{esc(u['trace_text'] or u['message'])}</li>"
            for ds in r["datasets"]
            for u in ds["failed_units"]
        ]
        n_failed = sum(ds["failed_count"] for ds in r["datasets"])
        details = (
            f"<details><summary>{n_failed} failed unit(s) and their vendor traces</summary>"
            f'<ul class="failed small">{"".join(failed)}</ul></details>'
            if failed
            else ""
        )
        params = ", ".join(
            f"{k}={v if not isinstance(v, list) else ','.join(map(str, v))}"
            for k, v in r["params"].items()
        )
        rows.append(
            f'<tr data-run="{esc(r["run_id"])}"><td><code>{esc(r["run_id"])}</code>'
            f'<div class="small muted">{esc(params)}</div></td><td>{esc(r["flow"])}</td>'
            f'<td class="status-{esc(r["status"])}">{esc(r["status"])}</td>'
            f"<td>{esc(when(r['started_at']))}</td><td class='num'>{esc(r['duration'])}</td>"
            f"<td>{chips}{details}</td></tr>"
        )
    return (
        '<h2>Recent runs</h2><table class="data" id="runs-table"><thead><tr>'
        "<th>Run</th><th>Flow</th><th>Status</th><th>Started</th>"
        '<th class="num">Duration</th><th>Datasets</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


# ---------------------------------------------------------------- small pages


def render_error(message: str) -> str:
    body = (
        f'<section class="empty-state"><h2>Cannot show the dashboard</h2><p>{esc(message)}</p>'
        '<p><a href="/dashboard">Back to the dashboard as of now</a></p></section>'
    )
    return _document("pitlake · data quality", body)


def render_no_docs() -> str:
    body = (
        '<section class="empty-state"><h2>No Data Docs yet</h2><p>The Data Docs site is '
        "written under <code>&lt;lake&gt;/dq/</code> by every ingest that validates a batch. "
        'Run an ingest first (see <a href="/dashboard">the dashboard</a>).</p></section>'
    )
    return _document("pitlake · Data Docs", body)


__all__ = ["dashboard_content", "pass_rate_svg", "render_page", "resolve_inside", "router"]
