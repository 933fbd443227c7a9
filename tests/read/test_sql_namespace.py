"""The SQL namespace holds the public views only (issue 30): SHOW TABLES used to list the
pieces the adjusted views and the calendar are built from (`_anchored`, `_factors`,
`_calendar_days`), and the README's table of views missed two of them."""

from __future__ import annotations

import re
from pathlib import Path

from pitlake.read.lake import Lake
from pitlake.read.sql import RELATIONS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_show_tables_lists_exactly_the_public_views(lake: Lake) -> None:
    shown = {r["name"] for r in lake.sql("SHOW TABLES").rows}
    assert shown == set(RELATIONS)
    assert not [n for n in shown if n.startswith("_")]
    refused = lake.sql("SELECT * FROM _factors")
    assert refused.status.value == "INVALID_ARGUMENTS"


def test_the_readme_names_every_view(lake: Lake) -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Point-in-time SQL") :]
    section = section[: section.index("\n### ", 10)]
    named = set(re.findall(r"`([a-z_]+)`", section))
    bases = {r.removesuffix("_versions") for r in RELATIONS}
    assert bases - named == set()
