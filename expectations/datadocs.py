"""Data Docs: static HTML of the gate's verdicts under `<lake>/dq/`, readable offline.

GX's own Data Docs pull CSS/JS from CDNs and a logo from S3, so offline they render unstyled.
These pages are rendered here instead: one page per validation with inline CSS, no scripts, no
external resources, relative links only (so `/dq/` can be served by the API as it is).

Bounded and incremental: `build_data_docs` stores each new verdict as JSON, renders only its
page, keeps the latest `keep` validations per dataset (older JSON and pages are deleted; the
catalog keeps the long history), and re-renders the index. `rebuild_data_docs` (for
`pitlake dq`) re-renders every kept page from the stored JSON. No GX import: fast for the CLI.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterable, Mapping
from datetime import timezone
from pathlib import Path
from typing import Any

from pitlake.expectations.verdict import Verdict, json_safe

from pitlake.lake.locking import locked
from pitlake.lake.parquet import atomic_write_bytes
from pitlake.lake.zones import DQ

DQ_DIR = DQ  # the zone name, defined with the lake's other zones
RESULTS = "results"
PAGES = "validations"
INDEX = "index.html"
DEFAULT_KEEP = 30  # validations per dataset kept in the docs

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans SC",sans-serif;
margin:0;color:#1f2328;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:12px 24px}header a{color:#fff}
main{padding:16px 24px;max-width:1200px}
h1{font-size:20px;margin:0}h2{font-size:17px;margin:24px 0 8px}h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;background:#fff;width:100%;margin:6px 0 12px}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eaeef2;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600}
.pass{background:#dafbe1;color:#116329}.warn{background:#fff8c5;color:#7d4e00}
.reject{background:#ffebe9;color:#a40e26}
.meta td:first-child{width:180px;color:#57606a}
.samples{font-size:12px;overflow-x:auto}
code{background:#eaeef2;padding:0 4px;border-radius:4px}
p.msg{background:#fff;border-left:4px solid #d0d7de;padding:6px 10px}
"""


def dq_root(lake_root: str | Path) -> Path:
    return Path(lake_root) / DQ_DIR


def _text(value: Any) -> str:
    """Escaped text. "://" is written as "&#58;//" so a URL in the data is shown, never a link
    or a resource (the page must not reference anything outside itself)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        value = json.dumps(json_safe(value), ensure_ascii=False)
    return html.escape(value).replace("://", "&#58;//")


def _page(title: str, body: str, *, up: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width"><title>{_text(title)}</title>'
        f'<style>{CSS}</style></head><body><header><h1><a href="{up}">pitlake data quality'
        f"</a> · {_text(title)}</h1></header><main>{body}</main></body></html>"
    )


def _badge(outcome: str) -> str:
    return f'<span class="badge {_text(outcome)}">{_text(outcome)}</span>'


def _file_stem(v: Verdict, text: str) -> str:
    at = v.at if v.at.tzinfo else v.at.replace(tzinfo=timezone.utc)
    stamp = at.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    run = _UNSAFE.sub("_", v.run_id or "norun")[:60]
    digest = hashlib.sha1(text.encode()).hexdigest()[:8]
    return f"{stamp}--{run}--{digest}"


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    cols: list[str] = []
    for r in rows:
        cols += [c for c in r if c not in cols]
    head = "".join(f"<th>{_text(c)}</th>" for c in cols)
    body = "".join(
        "<tr>" + "".join(f"<td>{_text(r.get(c))}</td>" for c in cols) + "</tr>" for r in rows
    )
    return f'<div class="samples"><table><tr>{head}</tr>{body}</table></div>'


def render_validation(v: Verdict) -> str:
    """One validation's page."""
    window = " – ".join(v.window) if v.window else ""
    meta = [
        ("outcome", _badge(str(v.outcome))),
        ("ledger status", _text(str(v.ledger_status))),
        ("suite", f"<code>{_text(v.suite)}</code>"),
        ("run", _text(v.run_id)),
        ("validated at", _text(json_safe(v.at))),
        ("rows", _text(str(v.row_count))),
        ("trade dates in batch", _text(", ".join(v.trade_dates))),
        ("expected trade date", _text(v.expected_trade_date or "")),
        ("window", _text(window)),
        ("partitions", _text(", ".join(v.partitions))),
        ("expectations evaluated", _text(str(v.evaluated))),
    ]
    parts = [f'<p class="msg">{_text(v.message)}</p>', '<table class="meta">']
    parts += [f"<tr><td>{k}</td><td>{val}</td></tr>" for k, val in meta if val]
    parts.append(
        "</table><h2>Expectations</h2><table><tr><th>check</th><th>column</th>"
        "<th>severity</th><th>result</th><th>unexpected</th><th>description</th>"
        "<th>GX expectation</th></tr>"
    )
    for c in v.checks:
        result = _badge("pass" if c.success else ("warn" if c.severity == "warning" else "reject"))
        parts.append(
            f"<tr><td>{_text(c.name)}</td><td>{_text(c.column)}</td><td>{_text(str(c.severity))}"
            f'</td><td>{result}</td><td class="num">{_text(c.unexpected_count)}</td>'
            f"<td>{_text(c.description)}</td><td><code>{_text(c.expectation_type)}</code></td></tr>"
        )
    parts.append("</table>")
    if v.failed:
        parts.append("<h2>Failures</h2>")
    for f in v.failed:
        parts.append(f"<h3>{_text(f.name)} ({_text(str(f.severity))})</h3>")
        parts.append(f"<p>{_text(f.description)}</p>")
        if f.unexpected_count is not None:
            parts.append(f"<p>Unexpected rows: {_text(f.unexpected_count)}</p>")
        if f.error:
            parts.append(f"<p>Error: <code>{_text(f.error)}</code></p>")
        if f.details:
            parts.append(f"<p>Details: <code>{_text(f.details)}</code></p>")
        parts.append(_table(f.sample_rows))
    return _page(f"{v.dataset} · {v.run_id}", "".join(parts), up="../../index.html")


def _load(path: Path) -> Verdict | None:
    try:
        return Verdict.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # a damaged result is skipped, not fatal to the docs


def _kept(root: Path) -> dict[str, list[tuple[str, Verdict]]]:
    """dataset → [(stem, verdict)], newest first."""
    out: dict[str, list[tuple[str, Verdict]]] = {}
    results = root / RESULTS
    if not results.is_dir():
        return out
    for ds_dir in sorted(p for p in results.iterdir() if p.is_dir()):
        entries = []
        for path in ds_dir.glob("*.json"):
            v = _load(path)
            if v is not None:
                entries.append((path.stem, v))
        entries.sort(key=lambda e: (e[1].at, e[0]), reverse=True)
        out[ds_dir.name] = entries
    return out


def render_index(kept: Mapping[str, list[tuple[str, Verdict]]]) -> str:
    parts = [
        "<p>Latest validations per dataset (pages link to each run's details).</p>",
        "<table><tr><th>dataset</th><th>latest</th><th>passed</th><th>warned</th>"
        "<th>rejected</th><th>written (pass + warn)</th></tr>",
    ]
    for ds, entries in kept.items():
        if not entries:
            continue
        counts = {
            o: sum(1 for _, v in entries if str(v.outcome) == o) for o in ("pass", "warn", "reject")
        }
        rate = (counts["pass"] + counts["warn"]) / len(entries)
        parts.append(
            f'<tr><td><a href="#{_text(ds)}">{_text(ds)}</a></td>'
            f"<td>{_badge(str(entries[0][1].outcome))}</td>"
            + "".join(f'<td class="num">{counts[o]}</td>' for o in ("pass", "warn", "reject"))
            + f'<td class="num">{rate:.0%}</td></tr>'
        )
    parts.append("</table>")
    for ds, entries in kept.items():
        parts.append(
            f'<h2 id="{_text(ds)}">{_text(ds)}</h2><table><tr><th>validated at</th>'
            "<th>run</th><th>outcome</th><th>ledger</th><th>rows</th>"
            "<th>trade dates</th><th>failed</th></tr>"
        )
        for stem, v in entries:
            href = f"{PAGES}/{_text(ds)}/{_text(stem)}.html"
            parts.append(
                f'<tr><td><a href="{href}">{_text(json_safe(v.at))}</a></td>'
                f"<td>{_text(v.run_id)}</td><td>{_badge(str(v.outcome))}</td>"
                f'<td>{_text(str(v.ledger_status))}</td><td class="num">{v.row_count}</td>'
                f"<td>{_text(', '.join(v.trade_dates))}</td>"
                f"<td>{_text(', '.join(v.failed_names()))}</td></tr>"
            )
        parts.append("</table>")
    return _page("overview", "".join(parts), up=INDEX)


def _write(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def _prune(root: Path, kept: dict[str, list[tuple[str, Verdict]]], keep: int) -> None:
    for ds, entries in kept.items():
        for stem, _ in entries[keep:]:
            (root / RESULTS / ds / f"{stem}.json").unlink(missing_ok=True)
            (root / PAGES / ds / f"{stem}.html").unlink(missing_ok=True)
        del entries[keep:]
        pages = root / PAGES / ds
        if pages.is_dir():  # pages whose result is gone (pruned elsewhere, deleted by hand)
            live = {stem for stem, _ in entries}
            for page in pages.glob("*.html"):
                if page.stem not in live:
                    page.unlink(missing_ok=True)


def build_data_docs(
    lake_root: str | Path,
    results: Iterable[Verdict | Mapping[str, Any]],
    *,
    keep: int = DEFAULT_KEEP,
) -> Path:
    """Add these verdicts to `<lake>/dq/` (one page each) and refresh the index.
    Returns the index page's path."""
    root = dq_root(lake_root)
    with locked(root):
        for r in results:
            v = r if isinstance(r, Verdict) else Verdict.from_dict(dict(r))
            text = json.dumps(v.to_dict(), ensure_ascii=False, sort_keys=True)
            stem = _file_stem(v, text)
            _write(root / RESULTS / v.dataset / f"{stem}.json", text)
            _write(root / PAGES / v.dataset / f"{stem}.html", render_validation(v))
        kept = _kept(root)
        _prune(root, kept, keep)
        _write(root / INDEX, render_index(kept))
    return root / INDEX


def rebuild_data_docs(lake_root: str | Path, *, keep: int = DEFAULT_KEEP) -> Path:
    """Re-render every kept page and the index from the stored results (`pitlake dq`)."""
    root = dq_root(lake_root)
    with locked(root):
        kept = _kept(root)
        _prune(root, kept, keep)
        for ds, entries in kept.items():
            for stem, v in entries:
                _write(root / PAGES / ds / f"{stem}.html", render_validation(v))
        _write(root / INDEX, render_index(kept))
    return root / INDEX
