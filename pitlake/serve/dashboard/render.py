"""The dashboard's HTML, from the Jinja templates beside this module.

Every `{{ value }}` goes through `esc` (the environment's finalize): HTML-escaped, and '://'
shown as '&#58;//' so a URL inside data is text, never something a browser could follow or
load. The chart's geometry is computed here; the templates only draw it."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from pitlake import schemas
from pitlake.schemas import Kind
from pitlake.serve.dashboard.styles import NEVER, STYLE_OF
from pitlake.statuses import RUN_DONE

TEMPLATES = Path(__file__).with_name("templates")
TITLE = "pitlake · data quality"
NAV = (
    ("#freshness", "Freshness"),
    ("#coverage", "Coverage"),
    ("#validation", "Validation"),
    ("#quarantine", "Quarantine"),
    ("#runs", "Runs"),
    ("/dq/", "Data Docs"),
    ("/dashboard/data.json", "JSON"),
)
STATE_TEXT = {
    "current": ("✓", "current"),
    "within": ("◐", "within threshold"),
    "stale": ("✗", "stale"),
    "never": ("—", "never fetched"),
}
REFERENCE_SOURCE = {
    "as_of": "from ?as_of",
    "now": "now (set ?as_of= to look back)",
    "pin": "the server's pin",
}


def esc(value: Any) -> str:
    """Escaped text. '://' becomes '&#58;//' so a URL inside data is shown as text, never
    becomes something a browser could follow or load."""
    if value is None:
        return ""
    return html.escape(str(value), quote=True).replace("://", "&#58;//")


def _finalize(value: Any) -> Markup:
    return value if isinstance(value, Markup) else Markup(esc(value))


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


def pct(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:.1f} %".replace(".0 %", " %")


def json_for_script(value: Any) -> Markup:
    """JSON safe inside a <script type="application/json"> element."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def link(as_of: str | None, path: str = "/dashboard") -> str:
    return path + ("?" + urlencode({"as_of": as_of}) if as_of else "")


def month_groups(sessions: Sequence[str]) -> list[tuple[str, int]]:
    """Consecutive sessions of one month: (YYYY-MM, how many), for the grid's month header."""
    groups: list[list[Any]] = []
    for s in sessions:
        month = s[:7]
        if groups and groups[-1][0] == month:
            groups[-1][1] += 1
        else:
            groups.append([month, 1])
    return [(m, n) for m, n in groups]


def cell_title(dataset: str, c: Mapping[str, Any]) -> str:
    """A grid cell's hover text: its status, rows, vendor, symbols, trace, message, run."""
    style = STYLE_OF.get(c["status"])
    lines = [f"{dataset} · {c['date']} · {c['status']} ({style.label if style else ''})"]
    if c["status"] == NEVER:
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


def params_text(params: Mapping[str, Any]) -> str:
    return ", ".join(
        f"{k}={v if not isinstance(v, list) else ','.join(map(str, v))}" for k, v in params.items()
    )


def failed_units(datasets: Iterable[Mapping[str, Any]]) -> list[tuple[Mapping, Mapping]]:
    return [(ds, u) for ds in datasets for u in ds["failed_units"]]


def chart(dataset: str, points: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The geometry of a pass-rate chart: one 100 % column per day, split into the share of
    batches that passed (green), warned (amber, dotted) and were rejected (red, hatched), so
    the pass rate is the height of the green part, also legible in greyscale."""
    width, height = 400, 130
    left, right, top, bottom = 40, 8, 10, 26
    w, h = width - left - right, height - top - bottom
    out: dict[str, Any] = {
        "dataset": dataset,
        "slug": "".join(ch if ch.isalnum() else "-" for ch in dataset),
        "width": width,
        "height": height,
        "left": left,
        "right": left + w,
        "top": top,
        "bottom": top + h,
        "middle_x": left + w / 2,
        "middle_y": top + h / 2,
        "gridlines": [
            {
                "y": f"{top + (1 - frac) * h:.1f}",
                "label_y": f"{top + (1 - frac) * h + 3.5:.1f}",
                "label": label,
            }
            for frac, label in ((1.0, "100%"), (0.5, "50%"), (0.0, "0%"))
        ],
        "bars": [],
        "ticks": [],
    }
    if not points:
        return out
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
        rects = []
        y = top + h
        for kind in ("passed", "warned", "rejected"):
            seg = h * p[kind] / total
            if seg <= 0:
                continue
            y -= seg
            rects.append(
                {
                    "kind": kind,
                    "x": f"{x - bar / 2:.1f}",
                    "y": f"{y:.1f}",
                    "width": f"{bar:.1f}",
                    "height": f"{seg:.1f}",
                }
            )
        out["bars"].append({"date": p["date"], "tip": tip, "rects": rects})
    ticks = [0, n - 1] if n > 1 else [0]
    if n >= 7:
        ticks.insert(1, n // 2)
    for i in ticks:
        anchor = "start" if i == 0 and n > 1 else "end" if i == n - 1 and n > 1 else "middle"
        x = centres[i] - (bar / 2 if anchor == "start" else -bar / 2 if anchor == "end" else 0)
        out["ticks"].append({"x": f"{x:.1f}", "anchor": anchor, "label": points[i]["date"]})
    return out


@cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=StrictUndefined,
    )
    env.filters.update(
        when=when,
        pct=pct,
        json_for_script=json_for_script,
        month_groups=month_groups,
        params_text=params_text,
        failed_units=failed_units,
    )
    env.globals.update(
        nav=NAV,
        state_text=STATE_TEXT,
        style_of=STYLE_OF,
        run_done={str(s) for s in RUN_DONE},
        cell_title=cell_title,
        chart=chart,
        # recorded once per fetch window, on its last session (not per session)
        window_datasets=[d for d, s in schemas.SCHEMAS.items() if s.kind is not Kind.TRADE_DATED],
    )
    return env


def render_page(d: Mapping[str, Any]) -> str:
    ref = d["reference"]
    return (
        environment()
        .get_template("page.html.j2")
        .render(
            title=TITLE,
            d=d,
            reference_source=REFERENCE_SOURCE.get(ref["source"], ref["source"]),
            json_link=link(
                ref["as_of"] if ref["source"] == "as_of" else None, "/dashboard/data.json"
            ),
        )
    )


def render_error(message: str) -> str:
    return environment().get_template("error.html.j2").render(title=TITLE, message=message)


def render_no_docs() -> str:
    return environment().get_template("no_docs.html.j2").render(title="pitlake · Data Docs")
