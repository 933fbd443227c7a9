"""`pitlake vendors check` offline: a Tushare endpoint that refuses connections (loopback port
9), AkShare whose every HTTP request is refused, and Tushare's recorded DataApi replies for the
table's verdicts (ok, no rows, denied, column and unit drift). No network: the only socket is
127.0.0.1:9, and everything else goes through the recorded-reply transport."""

from __future__ import annotations

import json
from datetime import datetime
from urllib.parse import urlsplit

import pytest
import requests
import requests.adapters
from typer.testing import CliRunner

from pitlake.cli import app
from pitlake.commands.vendors import EXIT_DRIFT, EXIT_UNREACHABLE
from tests.vendors.wire.http_replay import HttpReplay
from tests.vendors.wire.tushare_wire import ENDPOINTS, TOKEN, reply, serve, url_of

DEAD = "http://127.0.0.1:9"
REAL_SEND = requests.adapters.HTTPAdapter.send


class RefusedExceptLoopback(HttpReplay):
    """No recorded replies: every request is refused, except that loopback ones go out over
    the real transport (to port 9, where nothing listens)."""

    def _requests_send(self, adapter, request, **kw):
        if urlsplit(request.url).hostname == "127.0.0.1":
            return REAL_SEND(adapter, request, timeout=5)
        return super()._requests_send(adapter, request, **kw)


ENV = {"TUSHARE_TOKEN": TOKEN, "PITLAKE_TUSHARE_PER_MIN": "0", "PITLAKE_AKSHARE_PER_MIN": "0"}


def check(*args: str, env: dict[str, str] | None = None):
    result = CliRunner().invoke(
        app, ["vendors", "check", *args], env={**ENV, **(env or {})}, catch_exceptions=False
    )
    return result


def served_tushare(**overrides) -> HttpReplay:
    """Every Tushare endpoint answering its recorded normal reply, except `overrides`
    (endpoint → a reply kind, or a JSON payload)."""
    replay = HttpReplay()
    for endpoint in ENDPOINTS:
        change = overrides.get(endpoint)
        if isinstance(change, dict):
            replay.add(url_of(endpoint), json=change)
        else:
            serve(replay, endpoint, change or "normal")
    return replay


# ---------------------------------------------------------------- without network


def test_unreachable_vendors_are_one_line_each_and_exit_5() -> None:
    with RefusedExceptLoopback().active() as refused:  # AkShare's requests: all refused
        result = check("--vendors", "tushare,akshare", env={"PITLAKE_TUSHARE_URL": DEAD})
    lines = result.output.strip().splitlines()
    assert result.exit_code == EXIT_UNREACHABLE == 5
    assert len(lines) == 2, result.output
    assert lines[0].startswith(
        f"tushare: unreachable — no network, or the vendor is down at {DEAD}"
    )
    assert "HTTPConnectionPool(host='127.0.0.1', port=9)" in lines[0]
    assert lines[1].startswith("akshare: unreachable — no network")
    akshare_calls = [c for c in refused.calls if "127.0.0.1" not in c.url]
    assert len(akshare_calls) == 2  # stopped after two refusals
    assert TOKEN not in result.output


def test_by_default_every_registered_vendor_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from pitlake.vendors import canary
    from pitlake.vendors.plugins import known_vendors

    asked: list[list[str]] = []

    def adapters(names, **kw):
        asked.append(list(names))
        return {}

    monkeypatch.setattr(canary, "canary_adapters", adapters)
    check()
    assert asked == [list(known_vendors())] and "baostock" in asked[0]


def test_unreachable_as_json() -> None:
    with RefusedExceptLoopback().active():
        result = check("--json", "--vendors", "tushare,akshare", env={"PITLAKE_TUSHARE_URL": DEAD})
    payload = json.loads(result.output)
    assert result.exit_code == EXIT_UNREACHABLE
    assert payload["unreachable"] is True and payload["drift"] is False
    states = {v["vendor"]: v["state"] for v in payload["vendors"]}
    assert states == {"tushare": "unreachable", "akshare": "unreachable"}
    tushare = payload["vendors"][0]["endpoints"]
    assert [p["reachable"] for p in tushare] == [False, False]  # stopped after two refusals


def test_no_token_is_one_line_and_not_a_failure() -> None:
    result = check("--vendors", "tushare", env={"TUSHARE_TOKEN": "", "TS_TOKEN": ""})
    assert result.exit_code == 0
    assert result.output.strip() == (
        "tushare: not configured — no Tushare token: set TUSHARE_TOKEN (or TS_TOKEN)"
    )


def test_bad_arguments_exit_2() -> None:
    assert check("--vendors", "bloomberg").exit_code == 2
    assert check("--symbol", "not-a-symbol").exit_code == 2


# ---------------------------------------------------------------- verdicts per endpoint


def probes(result) -> dict[str, dict]:
    payload = json.loads(result.output)
    (tushare,) = payload["vendors"]
    return {p["endpoint"]: p for p in tushare["endpoints"]}


def test_every_endpoint_answering_as_recorded_is_ok() -> None:
    with served_tushare().active():
        result = check("--vendors", "tushare", "--date", "2025-06-03", "--json")
    assert result.exit_code == 0, result.output
    got = probes(result)
    assert set(got) == set(ENDPOINTS)  # one call per endpoint pitlake calls
    for endpoint, p in got.items():
        assert p["status"] == "ok", (endpoint, p)
        assert p["reachable"] and p["permission"] and p["columns"] == "ok"
        assert p["latency_ms"] is not None and p["rows"] > 0
    assert got["daily"]["units"] == "ok" and got["income"]["units"] == "ok"
    assert got["trade_cal"]["units"] is None  # nothing to check: not claimed plausible
    assert got["daily"]["params"] == {"trade_date": "20250603", "ts_code": "600519.SH"}


def test_the_table_lists_each_endpoint() -> None:
    with served_tushare().active():
        result = check("--vendors", "tushare", "--date", "2025-06-03")
    assert result.exit_code == 0
    assert "tushare: 2025-06-03, 600519.SH" in result.output
    for endpoint in ENDPOINTS:
        assert endpoint in result.output
    assert "latency ms" in result.output


def test_the_table_shows_vendor_messages_as_written() -> None:
    with served_tushare(top_inst="permission").active():
        result = check("--vendors", "tushare", "--date", "2025-06-03")
    assert "[tushare.top_inst] 抱歉，您没有访问该接口的权限" in result.output  # not read as markup


def test_denied_and_empty_endpoints_are_reported_not_failed() -> None:
    with served_tushare(top_inst="permission", news="empty").active():
        result = check("--vendors", "tushare", "--date", "2025-06-03", "--json")
    assert result.exit_code == 0
    got = probes(result)
    assert got["top_inst"]["status"] == "denied" and got["top_inst"]["permission"] is False
    assert got["news"]["status"] == "no rows" and got["news"]["reachable"] is True


def _daily(change) -> dict:
    body = json.loads(json.dumps(reply("daily", "normal")["json"]))
    change(body["data"])
    return body


@pytest.mark.parametrize(
    ("mutate", "field", "text"),
    [
        # amount in 元 instead of 千元: 1000× what close × volume implies
        (lambda d: [row.__setitem__(10, row[10] * 1000) for row in d["items"]], "units", "unit"),
        # a column renamed upstream
        (lambda d: d["fields"].__setitem__(9, "volume"), "columns", "missing columns ['vol']"),
    ],
)
def test_drift_is_named_and_exits_3(mutate, field: str, text: str) -> None:
    with served_tushare(daily=_daily(mutate)).active():
        result = check("--vendors", "tushare", "--date", "2025-06-03", "--json")
    assert result.exit_code == EXIT_DRIFT == 3
    daily = probes(result)["daily"]
    assert daily["status"] == "drift"
    assert daily[field].startswith("drift") and text in daily[field]
    assert json.loads(result.output)["drift"] is True


def test_one_unreachable_endpoint_among_answering_ones_exits_5() -> None:
    replay = served_tushare()
    replay.routes = [r for r in replay.routes if "daily_basic" not in r.pattern.pattern]
    replay.add(url_of("daily_basic"), error="connection")
    with replay.active():
        result = check("--vendors", "tushare", "--date", "2025-06-03", "--json")
    assert result.exit_code == EXIT_UNREACHABLE
    got = probes(result)
    assert got["daily_basic"]["status"] == "unreachable" and got["daily"]["status"] == "ok"


# ---------------------------------------------------------------- AkShare, the real library


def test_akshare_functions_answering_recorded_replies_are_checked_one_call_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every akshare function pitlake calls (one canary call per endpoint and mode), run for
    real over H1's recorded East Money / Sina / Tencent / exchange replies
    (tests/vendors/wire/akshare/, each citing its akshare source). East Money's down and
    broken pools refuse a date older than 30 days by akshare's clock, which is set to the
    evening after the recorded session."""
    from akshare.stock_feature import stock_three_report_em

    from pitlake.vendors.akshare import PLUGIN
    from tests.vendors.wire.akshare_wire import akshare_clock_at, reply_file
    from tests.vendors.wire.http_replay import load_replies

    monkeypatch.setattr(*akshare_clock_at(datetime(2025, 6, 3, 20, 0)))
    stock_three_report_em._stock_balance_sheet_by_report_ctype_em.cache_clear()
    replay = HttpReplay()
    buy = {"reportName": "RPT_BILLBOARD_DAILYDETAILSBUY"}  # 600519 not on the list that day
    replay.add_file(reply_file("stock_lhb_stock_detail_em", "empty"), params=buy)  # before
    replay.add_file(reply_file("stock_yysj_em", "normal"))  # bound to its reportName, before
    suspend = {"reportName": "RPT_CUSTOM_SUSPEND_DATA_INTERFACE"}
    replay.add_file(reply_file("stock_tfp_em", "normal"), params=suspend)  # before it too
    replay.add_file(reply_file("stock_info_sz_name_code", "normal"), params={"CATALOGID": "1110"})
    replay.add_file(reply_file("stock_info_sz_delist", "normal"), params={"CATALOGID": "1793_ssgs"})
    for fn in (  # stock_lhb_detail_em's route, which matches any datacenter request
        "stock_zh_a_hist",
        "stock_zh_a_daily",
        "stock_zh_a_daily@hfq-factor",
        "stock_zh_index_daily",
        "stock_profit_sheet_by_report_em",
        "stock_balance_sheet_by_report_em",
        "stock_cash_flow_sheet_by_report_em",
        "stock_news_em",
        "stock_info_global_em",
        "stock_lhb_detail_em",
        "tool_trade_date_hist_sina",
        "stock_info_sh_name_code",
        "stock_info_sh_delist",
        "stock_info_bj_name_code",
        "stock_zh_a_st_em",
        "index_stock_cons_weight_csindex",
        "index_stock_cons_csindex",
        "stock_zt_pool_em",
        "stock_zt_pool_dtgc_em",
        "stock_zt_pool_zbgc_em",
    ):
        replay.add_file(reply_file(fn, "normal"))
    for f_node in ("1", "0"):  # 财务报告 (financials' announcers), 全部 (announcements)
        replay.add_file(reply_file("stock_notice_report", "normal"), params={"f_node": f_node})
    for spec in load_replies(reply_file("stock_zh_a_hist_tx", "normal")):  # recorded for sz000001
        replay.add(**{**spec, "body": spec.get("body", "").replace("sz000001", "sh600519")})
    with replay.active():
        result = check("--vendors", "akshare", "--date", "2025-06-03", "--json")
    payload = json.loads(result.output[result.output.index("{") :])  # past any tqdm bar
    (akshare,) = payload["vendors"]
    got = {(p["endpoint"], p["params"].get("adjust", "")): p for p in akshare["endpoints"]}
    # one per endpoint, the hfq-factor mode of stock_zh_a_daily a second
    endpoints = set().union(*(f.endpoints for f in PLUGIN.fetchers.values()))
    assert len(got) == len(endpoints) + 1
    assert result.exit_code == 0, {k: p["message"] for k, p in got.items() if p["status"] != "ok"}
    assert got[("stock_lhb_stock_detail_em", "")]["status"] == "no rows"
    assert all(p["status"] == "ok" for k, p in got.items() if k[0] != "stock_lhb_stock_detail_em")
    assert got[("stock_zh_a_hist", "")]["units"] == "ok"  # amount ÷ volume vs close
    assert got[("stock_balance_sheet_by_report_em", "")]["units"] == "ok"
    assert not replay.unmatched
