"""`Lake.panel`'s status comes from the ingest ledger, as of each row's cutoff, never from its
row count (decision 51): a failed or never-fetched session is not an OK envelope with null
cells, an unfetched lake is UNKNOWN, and a fetch recorded after the cutoff does not show."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from pitlake.lake.catalog import Catalog
from pitlake.read.lake import Lake
from tests.lake.conftest import bj
from tests.serve.api.lakebuild import CSI300, NOW, SESSIONS, A, build_lake


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Lake:
    """The API test lake: quotes OK on 05-30 and 06-03 … 06-06, UPSTREAM_ERROR on 06-09,
    RATE_LIMITED on 06-10, PERMISSION_DENIED on 06-11, 06-12 never fetched; the security
    master fetched from 06-03 on; valuation NOT_READY on 06-06."""
    out = Lake(build_lake(tmp_path_factory.mktemp("panel-status")), clock=lambda: NOW)
    yield out
    out.close()


def _gap_dates(r, dataset: str) -> dict[str, str]:
    return {g["date"]: g["status"] for g in r.meta["datasets"][dataset].get("gaps", [])}


def test_fetched_sessions_are_ok(lake: Lake) -> None:
    r = lake.panel(["close"], SESSIONS[0], SESSIONS[-1], universe=[A])
    assert r.status == "OK", r.message
    assert r.meta["datasets"]["quotes"]["status"] == "OK"


def test_failed_and_never_fetched_sessions_are_not_ok(lake: Lake) -> None:
    r = lake.panel(["close"], "2025-06-05", "2025-06-12", universe=[A])
    assert r.status == "UPSTREAM_ERROR", r.message  # the most pressing failure
    assert r.to_pandas().close.isna().sum() == 4  # the rows are there, their cells null
    gaps = _gap_dates(r, "quotes")
    assert gaps == {
        "2025-06-09": "UPSTREAM_ERROR",
        "2025-06-10": "RATE_LIMITED",
        "2025-06-11": "PERMISSION_DENIED",
        "2025-06-12": "UNKNOWN",
    }
    assert "2025-06-09" in r.message and "never fetched" in r.message
    assert {g["dataset"] for g in r.meta["gaps"]} == {"quotes"}


def test_whole_market_failed_session(lake: Lake) -> None:
    r = lake.panel(["close"], "2025-06-06", "2025-06-09")  # the whole market, from the master
    assert r.status == "UPSTREAM_ERROR", r.message
    assert _gap_dates(r, "quotes") == {"2025-06-09": "UPSTREAM_ERROR"}


def test_a_never_fetched_session_alone_is_unknown(lake: Lake) -> None:
    r = lake.panel(["close"], "2025-06-12", "2025-06-12", universe=[A])
    assert r.status == "UNKNOWN", r.message


def test_the_master_before_its_first_fetch_is_unknown(lake: Lake) -> None:
    """05-30's universe as of 05-30: the master was first fetched on 06-03, later than that
    row's cutoff, so that fetch does not make 05-30 OK."""
    r = lake.panel(["close"], "2025-05-30", SESSIONS[0])
    assert r.status == "UNKNOWN", r.message
    assert _gap_dates(r, "securities") == {"2025-05-30": "UNKNOWN"}
    assert lake.panel(["close"], SESSIONS[0], SESSIONS[1]).status == "OK"


def test_an_unfetched_lake_is_unknown_not_no_data(tmp_path: Path) -> None:
    Catalog(lake_root=tmp_path).close()
    with Lake(tmp_path, clock=lambda: NOW) as empty:
        whole = empty.panel(["close"], SESSIONS[0], SESSIONS[-1])
        assert whole.status == "UNKNOWN", whole.message
        assert whole.meta["rows"] == 0
        given = empty.panel(["close", "revenue_ttm"], SESSIONS[0], SESSIONS[-1], universe=[A])
        assert given.status == "UNKNOWN", given.message
        assert given.meta["datasets"]["financials"]["status"] == "UNKNOWN"


def test_no_statement_after_a_successful_fetch_is_benign(lake: Lake) -> None:
    """B's statements were fetched OK with nothing public: its null revenue is NO_DATA, not
    a failure, and the envelope stays OK."""
    r = lake.panel(["revenue"], SESSIONS[0], SESSIONS[-1], universe=[A, "000001.SZ"])
    assert r.status == "OK", r.message
    assert r.meta["datasets"]["financials"]["gaps"][0]["status"] == "NO_DATA"


def test_index_members_fetch_failure_is_the_panels(tmp_path: Path) -> None:
    root = build_lake(tmp_path)
    cat = Catalog(lake_root=root)
    cat.record_ledger("index_members", "2025-06-05", "UPSTREAM_ERROR", message="HTTP 502")
    cat.close()
    with Lake(root, clock=lambda: NOW) as lake:
        before = lake.panel(["close"], SESSIONS[0], SESSIONS[1], universe=CSI300)
        assert before.status == "OK", before.message  # dated after those rows' cutoffs
        r = lake.panel(["close"], SESSIONS[0], SESSIONS[-1], universe=CSI300)
        assert r.status == "UPSTREAM_ERROR", r.message
        assert "HTTP 502" in r.message


def test_a_fetch_recorded_after_the_cutoff_does_not_show(tmp_path: Path) -> None:
    """As of 06-06: the sessions after it are NOT_READY (not public then); their fetches,
    failed and recorded later (one planted at 06-09 16:00), show neither their status, nor
    their message, nor their vendor trace."""
    root = build_lake(tmp_path)
    cat = Catalog(lake_root=root)
    at: datetime = bj("2025-06-12", "16:00")
    cat.record_ledger(
        "quotes", "2025-06-12", "UPSTREAM_ERROR", message="planted later", vendor="x", at=at
    )
    cat.close()
    with Lake(root, clock=lambda: NOW) as lake:
        r = lake.panel(["close"], "2025-06-05", "2025-06-12", universe=[A], as_of="2025-06-06")
    assert r.status == "NOT_READY", r.message
    assert set(_gap_dates(r, "quotes").values()) == {"NOT_READY"}
    for later in ("planted later", "timed out", "UPSTREAM_ERROR", "RATE_LIMITED"):
        assert later not in r.message
    assert all(t["date"] <= "2025-06-06" for t in r.meta["vendor_trace"])
    assert "planted later" not in str(r.meta)


@pytest.mark.parametrize(
    ("fields", "start", "end", "status", "dataset"),
    [
        (["is_st"], "2025-05-30", SESSIONS[0], "UNKNOWN", "securities"),  # master not yet fetched
        (["is_st", "days_listed"], SESSIONS[0], SESSIONS[-1], "OK", "securities"),
        (["in_000300"], SESSIONS[0], SESSIONS[-1], "OK", "index_members 000300.SH"),
        (["in_000300"], "2025-05-30", SESSIONS[0], "UNKNOWN", "index_members 000300.SH"),
        (["ret_1d"], SESSIONS[0], SESSIONS[-1], "OK", "adj_factors"),
        (["ret_1d"], SESSIONS[-1], "2025-06-09", "UPSTREAM_ERROR", "quotes"),
        (["limit_state"], SESSIONS[-1], "2025-06-10", "UPSTREAM_ERROR", "quotes"),
    ],
)
def test_each_field_brings_its_datasets_status(
    lake: Lake, fields: list[str], start: str, end: str, status: str, dataset: str
) -> None:
    r = lake.panel(fields, start, end, universe=[A])
    assert r.status == status, r.message
    assert r.meta["datasets"][dataset]["status"] == status


def _many_symbols_lake(root: Path) -> tuple[list[str], str, str]:
    """LEDGER_BY_SYMBOL + 101 symbols on 06-03 … 06-05, each session fetched whole-market OK;
    on 06-04 X has no row and its own fetch failed, Y has no row (suspended: the successful
    whole-market fetch is the ledger's word for it)."""
    from pitlake.lake.store import LakeStore
    from pitlake.read.panel.truth import LEDGER_BY_SYMBOL
    from tests.lake.conftest import INGEST, bar, write

    symbols = [f"{600000 + i}.SH" for i in range(LEDGER_BY_SYMBOL + 101)]
    x, y = symbols[7], symbols[300]
    days = SESSIONS[:3]
    rows = [
        bar(s, d, 10.0) for d in days for s in symbols if not (d == "2025-06-04" and s in (x, y))
    ]
    write(LakeStore(root), "quotes", rows)
    cat = Catalog(lake_root=root)
    for d in days:
        cat.record_ledger("quotes", d, "OK", rows=len(symbols), vendor="tushare", at=INGEST)
    cat.record_ledger(
        "quotes", "2025-06-04", "UPSTREAM_ERROR", symbol=x, message="HTTP 502", at=INGEST
    )
    cat.close()
    return symbols, x, y


def test_more_than_500_given_symbols_name_one_symbols_failed_fetch(tmp_path: Path) -> None:
    """Over LEDGER_BY_SYMBOL given symbols the sessions are judged as the whole market first;
    a fetch that failed for one symbol on a session the others have rows is still that
    symbol's gap (as `Lake.quotes` for it says), while a suspension on a successful
    whole-market fetch stays benign (as `Lake.quotes` for it says too)."""
    symbols, x, y = _many_symbols_lake(tmp_path)
    with Lake(tmp_path, clock=lambda: NOW) as lake:
        r = lake.panel(["close"], SESSIONS[0], SESSIONS[2], universe=symbols)
        alone_x = lake.quotes([x], date="2025-06-04")
        alone_y = lake.quotes([y], date="2025-06-04")
    assert alone_x.status == "UPSTREAM_ERROR" and alone_y.status == "NO_DATA"
    assert r.status == "UPSTREAM_ERROR", r.message
    assert [(g["symbol"], g["date"], g["status"]) for g in r.meta["gaps"]] == [
        (x, "2025-06-04", "UPSTREAM_ERROR")
    ]
    assert "HTTP 502" in r.message and x in r.message
    assert y not in str(r.meta["gaps"]) and y not in r.message
    assert r.meta["datasets"]["quotes"]["status"] == "UPSTREAM_ERROR"
    assert r.to_pandas().close.isna().sum() == 2  # both rows there, their cells null


def test_more_than_500_given_symbols_a_later_failure_stays_out(tmp_path: Path) -> None:
    """As of 06-03: 06-04 and 06-05 are not public yet (NOT_READY, the whole market's), and
    X's failed fetch of 06-04 shows neither as a status nor in meta or the message."""
    symbols, x, _ = _many_symbols_lake(tmp_path)
    with Lake(tmp_path, clock=lambda: NOW) as lake:
        r = lake.panel(["close"], SESSIONS[0], SESSIONS[2], universe=symbols, as_of=SESSIONS[0])
    assert r.status == "NOT_READY", r.message
    assert x not in str((r.meta["gaps"], r.meta["datasets"], r.meta["vendor_trace"]))
    assert x not in r.message and "HTTP 502" not in r.message


def test_more_than_500_given_symbols_never_fetched_is_unknown(tmp_path: Path) -> None:
    """A given symbol with no row and no ledger entry on a session the others were fetched
    by symbol (no whole-market entry) is never fetched: UNKNOWN, a run over its sessions."""
    from pitlake.lake.store import LakeStore
    from pitlake.read.panel.truth import LEDGER_BY_SYMBOL
    from tests.lake.conftest import INGEST, bar, write

    symbols = [f"{600000 + i}.SH" for i in range(LEDGER_BY_SYMBOL + 101)]
    fetched, lost = symbols[:-1], symbols[-1]
    write(LakeStore(tmp_path), "quotes", [bar(s, d, 10.0) for d in SESSIONS for s in fetched])
    cat = Catalog(lake_root=tmp_path)
    for d in SESSIONS:
        for s in fetched:
            cat.record_ledger("quotes", d, "OK", symbol=s, rows=1, at=INGEST)
    cat.close()
    with Lake(tmp_path, clock=lambda: NOW) as lake:
        r = lake.panel(["close"], SESSIONS[0], SESSIONS[-1], universe=symbols)
        alone = lake.quotes([lost], start=SESSIONS[0], end=SESSIONS[-1])
    assert alone.status == "UNKNOWN"
    assert r.status == "UNKNOWN", r.message
    gaps = r.meta["datasets"]["quotes"]["gaps"]
    assert [(g["symbol"], g["date"], g.get("until"), g.get("sessions")) for g in gaps] == [
        (lost, SESSIONS[0], SESSIONS[-1], len(SESSIONS))
    ]
