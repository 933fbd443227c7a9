"""The run summary as a Prefect markdown artifact (one row per dataset)."""

from __future__ import annotations

from typing import Any


def _trace(units: list[dict[str, Any]], vendors: list[str]) -> str:
    if not units:
        return " → ".join(vendors) or "—"
    last = units[-1].get("trace") or []
    return " → ".join(f"{t['vendor']}:{t['outcome']}" for t in last) or "—"


def summary_markdown(title: str, summary: dict[str, Any]) -> str:
    verdict = "Completed" if summary["completed"] else "Failed"
    lines = [
        f"# {title}: {verdict}",
        "",
        f"{summary.get('scope', '')}",
        "",
        "| dataset | status | rows | added | vendor | vendor trace | expectations | message |",
        "|---|---|---:|---:|---|---|---|---|",
    ]
    for d in summary["datasets"]:
        msg = (d.get("message") or "").replace("|", "/").replace("\n", " ")[:160]
        failed = ", ".join(d.get("expectations") or []) or "all passed"
        lines.append(
            f"| {d['dataset']} | {d['status']} | {d['rows']} | {d['rows_added']} | "
            f"{', '.join(d['vendors']) or '—'} | {_trace(d['failed_units'], d['vendors'])} | "
            f"{failed} | {msg} |"
        )
    return "\n".join(lines)


def publish(key: str, title: str, summary: dict[str, Any]) -> None:
    from prefect.artifacts import create_markdown_artifact

    create_markdown_artifact(key=key, markdown=summary_markdown(title, summary), description=title)
