"""The dashboard in a real browser: Debian chromium (/usr/bin/chromium), headless, driven by
Playwright, against `pitlake serve` in a subprocess on a lake with injected failures
(tests/serve/dashboard/failure_lake.py). Checks what a person sees: the lag, the failed cells, the
quarantine naming the failed expectation, no console errors, and no request leaving
127.0.0.1. Saves a full-page screenshot under test-artifacts/ (git-ignored)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pitlake.calendar import XSHG
from pitlake.pit import parse_cutoff
from tests.serve.dashboard.conftest import ENV_KEPT_OUT
from tests.serve.dashboard.failure_lake import (
    NOT_READY_AT,
    REJECTED_AT,
    REJECTED_EXPECTATION,
    REPO,
    UPSTREAM_ERROR_AT,
)

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPO / "test-artifacts"
SERVER_START_TIMEOUT_S = 45.0
# The sample's last session, and three sessions later (a fixed "today" for the lag).
SAMPLE_END = "2025-06-30"
LATER = "2025-07-03"
VALUATION_LAST_OK = date(2025, 6, 27)  # 2025-06-30 failed (UPSTREAM_ERROR)


def expected_lag(latest_ok: date, as_of: str) -> int:
    """The lag the page must show, from the trading calendar (not from the dashboard)."""
    return XSHG.sessions_count_between(latest_ok, XSHG.latest_closed_session(parse_cutoff(as_of)))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(base: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(
                f"`pitlake serve` exited with {proc.returncode}:\n{log.read_text()[-3000:]}"
            )
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.1)  # the server process is still starting
    pytest.fail(f"`pitlake serve` not healthy after {SERVER_START_TIMEOUT_S} s:\n{log.read_text()}")


@pytest.fixture(scope="session", autouse=True)
def chromium_present() -> None:
    """Fail at once (before building a lake) when the browser is missing: never skip."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} not found: the browser test needs Debian's chromium "
            "(bash scripts/setup-test-env.sh installs it; never `playwright install`)"
        )


@pytest.fixture(scope="module")
def server(failure_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`pitlake serve` on a free 127.0.0.1 port; killed at the end."""
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEPT_OUT}
    cmd = [sys.executable, "-m", "pitlake.cli", "serve", "--lake", str(failure_lake)]
    cmd += ["--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=REPO)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base, proc, log)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _launch(p):  # type: ignore[no-untyped-def]
    return p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def _lag_cell(page, dataset: str) -> str:  # type: ignore[no-untyped-def]
    return page.locator(f'#freshness-table tr[data-dataset="{dataset}"] td.lag').inner_text()


def _cell(page, dataset: str, day: str):  # type: ignore[no-untyped-def]
    return page.locator(f'#coverage-grid button.cell[data-dataset="{dataset}"][data-date="{day}"]')


def test_dashboard_in_chromium(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    from playwright.sync_api import sync_playwright

    requests: list[str] = []
    errors: list[str] = []
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.on("request", lambda r: requests.append(r.url))
            page = context.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))

            # Three sessions after the sample ends: the lag is the calendar's, per dataset.
            r = page.goto(f"{server}/dashboard?as_of={LATER}", wait_until="networkidle")
            assert r is not None and r.status == 200
            assert page.locator("#reference-session").inner_text() == "2025-07-03"
            assert _lag_cell(page, "quotes") == str(expected_lag(date(2025, 6, 30), LATER))
            assert _lag_cell(page, "valuation") == str(expected_lag(VALUATION_LAST_OK, LATER))
            assert _cell(page, "quotes", "2025-07-01").get_attribute("data-status") == "NEVER"

            # At the sample's end: quotes current, valuation one session behind.
            page.goto(f"{server}/dashboard?as_of={SAMPLE_END}", wait_until="networkidle")
            assert _lag_cell(page, "quotes") == str(expected_lag(date(2025, 6, 30), SAMPLE_END))
            assert _lag_cell(page, "valuation") == str(expected_lag(VALUATION_LAST_OK, SAMPLE_END))
            assert (
                "within threshold"
                in page.locator('#freshness-table tr[data-dataset="valuation"]').inner_text()
            )

            # The planted failures sit in the right cells, with a code letter for greyscale.
            for (ds, day), status, code in (
                (REJECTED_AT, "REJECTED", "X"),
                (UPSTREAM_ERROR_AT, "UPSTREAM_ERROR", "E"),
                (NOT_READY_AT, "NOT_READY", "W"),
            ):
                cell = _cell(page, ds, day)
                assert cell.get_attribute("data-status") == status, (ds, day)
                assert cell.inner_text() == code
            assert _cell(page, "quotes", "2025-06-11").get_attribute("data-status") == "OK"
            assert REJECTED_EXPECTATION in (_cell(page, *REJECTED_AT).get_attribute("title") or "")

            # Clicking a cell opens its ledger entry: vendor, trace, message.
            _cell(page, *UPSTREAM_ERROR_AT).click()
            detail = page.locator("#cell-detail").inner_text()
            assert "valuation · 2025-06-10" in detail and "UPSTREAM_ERROR" in detail
            assert "Vendor trace" in detail and "tushare" in detail
            _cell(page, *REJECTED_AT).click()
            detail = page.locator("#cell-detail").inner_text()
            assert REJECTED_EXPECTATION in detail and "tushare" in detail

            # The quarantine names the failed expectation of the rejected batch.
            ds, day = REJECTED_AT
            item = page.locator(f'#quarantine-list article[data-dataset="{ds}"][data-date="{day}"]')
            assert REJECTED_EXPECTATION in item.inner_text()
            assert "600519.SH" in item.inner_text()  # a sample row

            # Pass-rate charts (server-side SVG), the legend, the runs table.
            assert page.locator("#validation svg.chart").count() >= 6
            legend = page.locator("#legend").inner_text()
            for label in ("OK", "rejected", "upstream error", "never fetched", "not ready"):
                assert label in legend
            # As of the sample's end no run had started (they ran today): none is shown.
            assert "No run had started by" in page.locator("#runs-none").inner_text()

            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / "dashboard.png"
            page.screenshot(path=str(shot), full_page=True)

            # As of now the runs are there, the failed one among them.
            page.goto(f"{server}/dashboard", wait_until="networkidle")
            assert "FAILED" in page.locator("#runs-table").inner_text()

            # The JSON says the same thing.
            data = json.loads(
                page.request.get(f"{server}/dashboard/data.json?as_of={LATER}").text()
            )
            lags = {f["dataset"]: f["lag_sessions"] for f in data["freshness"]}
            assert lags["valuation"] == expected_lag(VALUATION_LAST_OK, LATER)

            # The Data Docs link opens the site served from <lake>/dq/.
            page.click("header.top nav >> text=Data Docs")
            page.wait_for_load_state("networkidle")
            assert urlsplit(page.url).path == "/dq/"
            assert "quotes" in page.content()
        finally:
            browser.close()

    with capsys.disabled():
        print(f"\n  dashboard screenshot: {shot}")
    assert errors == [], f"console errors: {errors}"
    assert any(u.endswith("/dashboard/static/dashboard.css") for u in requests)
    assert any(u.endswith("/dashboard/static/dashboard.js") for u in requests)
    outside = [u for u in requests if urlsplit(u).hostname != "127.0.0.1"]
    assert outside == [], f"requests left 127.0.0.1: {outside}"


def test_api_docs_render_with_the_network_off(server: str) -> None:
    """/docs (Swagger UI) with every request off 127.0.0.1 aborted: the page must come up from
    the server's own assets (FastAPI's default loads them from a CDN and is blank offline)."""
    from playwright.sync_api import sync_playwright

    blocked: list[str] = []
    errors: list[str] = []

    def only_loopback(route) -> None:  # type: ignore[no-untyped-def]
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort("internetdisconnected")

    with sync_playwright() as p:
        browser = _launch(p)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.route("**/*", only_loopback)
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            r = page.goto(f"{server}/docs", wait_until="networkidle")
            assert r is not None and r.status == 200
            title = page.locator(".swagger-ui .info .title")
            title.wait_for(timeout=15_000)
            assert "pitlake query API" in title.inner_text()
            assert page.locator(".swagger-ui .opblock").count() >= 8  # the /v1 endpoints
            assert "/v1/quotes" in page.locator(".swagger-ui").inner_text()
        finally:
            browser.close()
    assert blocked == [], f"the docs asked for off-machine assets: {blocked}"
    assert errors == [], f"page errors: {errors}"
