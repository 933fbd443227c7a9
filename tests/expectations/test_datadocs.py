"""Data Docs render offline: styled inline, no external resource, bounded, incremental."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest
from pitlake.expectations import build_data_docs, rebuild_data_docs, validate
from pitlake.expectations.datadocs import PAGES, RESULTS, dq_root
from pitlake.expectations.verdict import Verdict

from tests.expectations.conftest import BUILDERS, PREV, VALIDATED, ctx

EXTERNAL = re.compile(r"https?://|<script|<link|\bsrc\s*=|url\(|@import", re.IGNORECASE)


def _verdicts() -> list[Verdict]:
    news = BUILDERS["news"]()
    news.loc[0, "published_at"] = pd.Timestamp("2030-01-01", tz="UTC")  # sample has a URL
    return [
        validate("quotes", BUILDERS["quotes"](), ctx()),
        validate("quotes", BUILDERS["quotes"](), ctx(previous_row_count=100, run_id="run-2")),
        validate("valuation", BUILDERS["valuation"](PREV), ctx()),  # stale
        validate("news", news, ctx()),
    ]


def _html_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.html"))


def test_docs_are_built_offline_with_no_external_resource(tmp_path: Path) -> None:
    index = build_data_docs(tmp_path, _verdicts())
    root = dq_root(tmp_path)
    assert index == root / "index.html"
    files = _html_files(root)
    assert len(files) == 1 + 4
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert "<style>" in text and ".badge" in text  # styled without fetching anything
        assert not EXTERNAL.search(text), (f, EXTERNAL.search(text))
        for href in re.findall(r'href="([^"]*)"', text):
            assert not re.match(r"^[a-z]+:|^//", href), href  # relative links only
            assert (f.parent / href.split("#")[0]).resolve().exists() or href.startswith("#")
    news_page = next(f for f in files if f.parent.name == "news").read_text(encoding="utf-8")
    assert "https&#58;//example.invalid/n1" in news_page  # shown as text, not a link


def test_index_lists_each_validation_with_its_outcome(tmp_path: Path) -> None:
    build_data_docs(tmp_path, _verdicts())
    index = (dq_root(tmp_path) / "index.html").read_text(encoding="utf-8")
    assert index.count('class="badge reject"') >= 2 and 'class="badge warn"' in index
    assert "trade_date_expected" in index and "published_not_in_future" in index
    page = next((dq_root(tmp_path) / PAGES / "valuation").glob("*.html")).read_text()
    assert "stale: requested 2025-06-04" in page and "NOT_READY" in page


def test_docs_keep_only_the_latest_validations_per_dataset(tmp_path: Path) -> None:
    base = validate("quotes", BUILDERS["quotes"](), ctx())
    for i in range(5):
        v = Verdict.from_dict({**base.to_dict(), "run_id": f"run-{i}"})
        v.at = VALIDATED + timedelta(days=i)
        build_data_docs(tmp_path, [v], keep=3)
    root = dq_root(tmp_path)
    assert len(list((root / RESULTS / "quotes").glob("*.json"))) == 3
    pages = sorted(p.name for p in (root / PAGES / "quotes").glob("*.html"))
    assert len(pages) == 3 and all(re.search(r"run-[234]", p) for p in pages)


def test_build_is_incremental(tmp_path: Path) -> None:
    first = validate("quotes", BUILDERS["quotes"](), ctx())
    build_data_docs(tmp_path, [first])
    (page,) = (dq_root(tmp_path) / PAGES / "quotes").glob("*.html")
    before = page.stat().st_ino, page.stat().st_mtime_ns
    build_data_docs(tmp_path, [validate("quotes", BUILDERS["quotes"](), ctx(run_id="run-9"))])
    assert (page.stat().st_ino, page.stat().st_mtime_ns) == before  # not re-rendered
    assert len(list((dq_root(tmp_path) / PAGES / "quotes").glob("*.html"))) == 2


def test_rebuild_renders_every_kept_page_from_stored_results(tmp_path: Path) -> None:
    build_data_docs(tmp_path, _verdicts())
    root = dq_root(tmp_path)
    for f in _html_files(root):
        f.unlink()
    rebuild_data_docs(tmp_path)
    assert len(_html_files(root)) == 1 + 4
    rebuild_data_docs(tmp_path, keep=1)  # quotes had two
    assert len(list((root / PAGES / "quotes").glob("*.html"))) == 1


@pytest.mark.parametrize("as_dict", [True, False])
def test_results_may_be_verdicts_or_their_dicts(tmp_path: Path, as_dict: bool) -> None:
    v = validate("quotes", BUILDERS["quotes"](), ctx())
    build_data_docs(tmp_path, [v.to_dict() if as_dict else v])
    assert len(list((dq_root(tmp_path) / RESULTS / "quotes").glob("*.json"))) == 1
