"""The dashboard's HTTP surface on the real app (`create_app`): the page, its JSON, the empty
state, bad input, the bundled assets, the Data Docs mount (no traversal), the token and the
pin, and secret redaction."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pitlake.lake.catalog import Catalog
from tests.serve.dashboard.conftest import RECORDED

A = "600519.SH"


def planted(catalog: Catalog) -> None:
    """A small ledger: quotes OK around a REJECTED session, valuation behind by a failure."""
    for day in ("2025-06-03", "2025-06-04", "2025-06-06"):
        catalog.record_ledger("quotes", day, "OK", rows=10, vendor="tushare", at=RECORDED)
    catalog.record_ledger(
        "quotes",
        "2025-06-05",
        "REJECTED",
        vendor="tushare",
        trace=[{"vendor": "tushare", "outcome": "OK", "attempts": 1, "message": "10 rows"}],
        message="quotes: rejected: ohlc_low (1 rows)",
        run_id="nightly-20250605",
        at=RECORDED,
    )
    catalog.record_ledger("valuation", "2025-06-04", "OK", rows=10, at=RECORDED)
    catalog.record_ledger(
        "valuation", "2025-06-05", "UPSTREAM_ERROR", message="系统内部错误", at=RECORDED
    )
    catalog.record_quarantine(
        "nightly-20250605",
        "quotes",
        "2025-06-05",
        "/elsewhere/batch.parquet",
        "quotes: rejected: ohlc_low (1 rows)",
        failed_expectations=[{"name": "ohlc_low", "description": "low ≤ min(open, close)"}],
        sample_rows=[{"symbol": A, "low": 1486.1, "high": 1481.1}],
        at=RECORDED,
    )


def test_the_page_shows_freshness_cells_and_quarantine(catalog, lake, client_for) -> None:
    planted(catalog)
    client = client_for(lake)
    r = client.get("/dashboard", params={"as_of": "2025-06-06"})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    page = r.text
    assert 'data-dataset="quotes" data-date="2025-06-05" data-status="REJECTED"' in page
    assert 'data-dataset="valuation" data-date="2025-06-05" data-status="UPSTREAM_ERROR"' in page
    assert '<tr data-dataset="valuation" data-state="stale">' in page  # 2 sessions behind
    assert "ohlc_low" in page and "Nothing ingested yet" not in page
    assert "2025-06-06 end of day" in page
    # Offline: nothing on the page points outside this server.
    assert "://" not in page
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp


def test_data_json_is_the_same_content(catalog, lake, client_for) -> None:
    planted(catalog)
    client = client_for(lake)
    data = client.get("/dashboard/data.json", params={"as_of": "2025-06-06"}).json()
    assert data["empty"] is False
    assert data["reference"]["latest_closed_session"] == "2025-06-06"
    assert data["reference"]["source"] == "as_of"
    by_ds = {f["dataset"]: f for f in data["freshness"]}
    assert (by_ds["quotes"]["lag_sessions"], by_ds["valuation"]["lag_sessions"]) == (0, 2)
    row = next(r for r in data["coverage"]["rows"] if r["dataset"] == "quotes")
    cell = next(c for c in row["cells"] if c["date"] == "2025-06-05")
    assert (cell["status"], cell["vendor"], cell["run_id"]) == (
        "REJECTED",
        "tushare",
        "nightly-20250605",
    )
    assert data["quarantine"][0]["failed_expectations"][0]["name"] == "ohlc_low"


def test_default_reference_is_the_app_clock(catalog, lake, client_for) -> None:
    planted(catalog)
    data = client_for(lake).get("/dashboard/data.json").json()
    assert data["reference"]["source"] == "now"
    # 12:00 on 2025-12-31 is before that session closes: the latest closed one is the 30th
    assert data["reference"]["latest_closed_session"] == "2025-12-30"
    assert data["reference"]["as_of"].startswith("2025-12-31T12:00:00")


def test_empty_lake_page_explains_the_first_ingest(lake, client_for) -> None:
    client = client_for(lake)
    r = client.get("/dashboard")
    assert r.status_code == 200
    assert "Nothing ingested yet" in r.text
    assert "pitlake ingest --source replay:sample --start 2025-04-01 --end 2025-06-30" in r.text
    assert 'id="coverage-grid"' not in r.text
    j = client.get("/dashboard/data.json")
    assert j.status_code == 200
    data = j.json()
    assert data["empty"] is True
    for key in ("quarantine", "runs", "first_ingest", "freshness", "coverage", "validation"):
        assert key in data
    assert data["quarantine"] == [] and data["runs"] == []
    assert len(data["coverage"]["sessions"]) == 60


@pytest.mark.parametrize("bad", ["not-a-date", "2025-02-30", "1980-01-01"])
def test_a_bad_as_of_is_a_400_not_an_error(lake, client_for, bad: str) -> None:
    client = client_for(lake)
    page = client.get("/dashboard", params={"as_of": bad})
    assert page.status_code == 400
    assert "Cannot show the dashboard" in page.text
    j = client.get("/dashboard/data.json", params={"as_of": bad})
    assert j.status_code == 400
    assert j.json()["error"] == "INVALID_ARGUMENTS"


def test_bundled_assets_only(lake, client_for) -> None:
    client = client_for(lake)
    for name, kind in (("dashboard.css", "text/css"), ("dashboard.js", "text/javascript")):
        r = client.get(f"/dashboard/static/{name}")
        assert r.status_code == 200
        assert r.headers["content-type"].startswith(kind)
        assert "://" not in r.text  # no CDN, no external URL
    for name in ("../dashboard.py", "..%2Fdashboard.py", "x.css", "__init__.py"):
        assert client.get(f"/dashboard/static/{name}").status_code == 404


def test_data_docs_are_served_from_the_lake_without_traversal(lake, client_for) -> None:
    dq = lake / "dq"
    (dq / "validations" / "quotes").mkdir(parents=True)
    (dq / "index.html").write_text("<html><body>docs index</body></html>")
    (dq / "validations" / "quotes" / "v1.html").write_text("<html>quotes page</html>")
    (lake / "secret.txt").write_text("TOP SECRET")
    (dq / ".hidden.html").write_text("hidden")
    os.symlink(lake / "secret.txt", dq / "link.html")
    os.symlink(lake, dq / "up")
    client = client_for(lake)
    r = client.get("/dq/")
    assert r.status_code == 200 and "docs index" in r.text
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert client.get("/dq/validations/quotes/v1.html").text == "<html>quotes page</html>"
    assert client.get("/dq", follow_redirects=False).headers["location"] == "/dq/"
    for path in (
        "/dq/../secret.txt",
        "/dq/%2e%2e/secret.txt",
        "/dq/..%2fsecret.txt",
        "/dq/%2e%2e%2fsecret.txt",
        "/dq/validations/../../secret.txt",
        "/dq/link.html",
        "/dq/up/secret.txt",
        "/dq/up/catalog.db",
        "/dq/.hidden.html",
        "/dq//etc/passwd",
        "/dq/%00",
    ):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "TOP SECRET" not in r.text


def test_missing_data_docs_say_so(lake, client_for) -> None:
    r = client_for(lake).get("/dq/")
    assert r.status_code == 404
    assert "No Data Docs yet" in r.text


def test_the_token_covers_the_dashboard(catalog, lake, client_for) -> None:
    planted(catalog)
    client = client_for(lake, token="dashboard-test-token")
    assert client.get("/dashboard").status_code == 401
    assert client.get("/dashboard/data.json").status_code == 401
    auth = {"Authorization": "Bearer dashboard-test-token"}
    assert client.get("/dashboard", headers=auth).status_code == 200


def test_a_pinned_server_clamps_the_reference(catalog, lake, client_for) -> None:
    planted(catalog)
    client = client_for(lake, as_of_pin="2025-06-04")
    ref = client.get("/dashboard/data.json", params={"as_of": "2025-06-20"}).json()["reference"]
    assert (ref["source"], ref["latest_closed_session"]) == ("pin", "2025-06-04")
    assert "pinned" in ref["notes"][0]


def test_secrets_in_ledger_messages_are_masked(
    catalog, lake, client_for, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "tushare-secret-0123456789"
    monkeypatch.setenv("TUSHARE_TOKEN", secret)
    catalog.record_ledger(
        "quotes", "2025-06-05", "UPSTREAM_ERROR", message=f"GET ?token={secret} failed"
    )
    client = client_for(lake)
    for path in ("/dashboard", "/dashboard/data.json"):
        body = client.get(path, params={"as_of": "2025-06-06"}).text
        assert secret not in body
        assert "***" in body


def test_catalog_is_opened_on_the_lake_when_the_app_has_none(catalog, lake) -> None:
    """The router also works on a bare app that only knows the lake path."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from pitlake.serve.dashboard.routes import router

    planted(catalog)
    app = FastAPI()
    app.state.lake_path = Path(lake)
    app.include_router(router)
    with TestClient(app) as client:
        data = client.get("/dashboard/data.json", params={"as_of": "2025-06-06"}).json()
    assert data["freshness"][0]["latest_ok"] == "2025-06-06"
    app.state.dashboard_catalog.close()
