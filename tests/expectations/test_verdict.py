"""Verdicts are JSON-safe, round-trip, and feed the catalog exactly as its API expects."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from pitlake.expectations import validate
from pitlake.expectations.verdict import Outcome, Verdict, json_safe

from pitlake.lake.catalog import Catalog
from pitlake.statuses import LedgerStatus
from tests.expectations.conftest import BUILDERS, PREV, VALIDATED, ctx


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    return Catalog(f"sqlite:///{tmp_path / 'catalog.db'}")


def _rejected() -> Verdict:
    frame = BUILDERS["news"]()
    frame.loc[0, "published_at"] = pd.Timestamp("2030-01-01", tz="UTC")
    return validate("news", frame, ctx())


def test_verdict_dict_is_json_and_round_trips() -> None:
    v = _rejected()
    d = v.to_dict()
    text = json.dumps(d, ensure_ascii=False)  # raises on anything not JSON-safe
    back = Verdict.from_dict(json.loads(text))
    assert back.to_dict() == d
    assert d["at"] == "2025-06-05T00:31:00+08:00" and back.at == VALIDATED
    assert d["failed"][0]["sample_rows"][0]["symbols"] == ["600519.SH"]


def test_json_safe_values() -> None:
    assert json_safe(float("nan")) is None and json_safe(pd.NaT) is None
    assert json_safe(pd.Timestamp("2025-06-04T07:00Z")) == "2025-06-04T15:00:00+08:00"
    assert json_safe(pd.Timestamp("2025-06-04")) == "2025-06-04"
    assert json_safe("x" * 500).endswith("…") and len(json_safe("x" * 500)) == 201


def test_catalog_records_fit_record_validation(catalog: Catalog) -> None:
    passed = validate("quotes", BUILDERS["quotes"](), ctx())
    warned = validate("quotes", BUILDERS["quotes"](), ctx(previous_row_count=1000))
    rejected = validate("quotes", BUILDERS["quotes"](PREV), ctx())
    for v in (passed, warned, rejected):
        for record in v.to_catalog_records():
            catalog.record_validation(**record)
    rows = catalog.validations("quotes")
    assert len(rows) == 3
    by_severity = sorted((r.success, r.severity, r.failed) for r in rows)
    assert by_severity == [(False, "blocking", 1), (False, "warning", 1), (True, "blocking", 0)]
    assert {r.partition for r in rows} == {"2025"}
    stored = next(r for r in rows if r.failed and r.severity == "blocking")
    assert stored.failed_expectations[0]["name"] == "trade_date_expected"
    assert str(stored.date_key) == "2025-06-04"


def test_quarantine_record_fits_record_quarantine(catalog: Catalog, tmp_path: Path) -> None:
    from pitlake.lake.store import LakeStore

    frame = BUILDERS["quotes"]()
    frame["volume"] = -5.0
    v = validate("quotes", frame, ctx())
    assert v.outcome is Outcome.REJECT and v.ledger_status is LedgerStatus.REJECTED
    path = LakeStore(tmp_path).quarantine.keep("quotes", v.run_id, frame, v.to_dict())
    catalog.record_quarantine(**v.quarantine_record(str(path)))
    (entry,) = catalog.quarantines(dataset="quotes")
    assert entry.reason == v.message
    assert entry.failed_expectations[0]["name"] == "volume_non_negative"
    assert len(entry.sample_rows) == 5 and entry.sample_rows[0]["volume"] == -5.0
    report = json.loads((path.parent / "report.json").read_text())
    assert report["ledger_status"] == "REJECTED"


def test_empty_batch_gets_one_record_without_partition() -> None:
    v = validate("news", BUILDERS["news"]().iloc[:0], ctx())
    assert v.outcome is Outcome.PASS
    (record,) = v.to_catalog_records()
    assert record["partition"] is None and record["evaluated"] == v.evaluated
