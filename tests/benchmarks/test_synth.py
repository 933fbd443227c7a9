"""Smoke test of the synthetic market generator at a tiny size: its frames are canonical and
schema-valid, the awkward financial cases are really there, and the lake it builds answers."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

import numpy as np
import pandas as pd
import pytest
from pitlake.schemas import get as get_schema

from benchmarks.synth import (
    MarketWalk,
    SynthConfig,
    generate,
    make_symbols,
    quote_frames,
    trading_sessions,
)
from pitlake.calendar import BEIJING, XSHG
from pitlake.lake.canonical import canonical_batch
from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from pitlake.pit import end_of_beijing_day
from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from pitlake.symbols import canonical, parse

STAMPED = ["known_at", "known_at_basis", "source"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[SynthConfig, LakeStore]:
    # Rates raised so 5 symbols × 20 sessions show every case (ex-dates, revisions, …).
    cfg = SynthConfig(
        out=tmp_path_factory.mktemp("synth") / "lake",
        symbols=5,
        sessions=20,
        fin_years=1,
        ex_dates_per_year=40.0,
        late_rate=0.2,
        undated_ann_rate=0.3,
        revision_rate=0.25,
        restatement_rate=0.15,
    )
    generate(cfg, log=lambda _: None)
    return cfg, LakeStore(cfg.out)


def test_symbols_are_canonical_and_span_exchanges() -> None:
    syms = make_symbols(40, np.random.default_rng(1))
    assert len(set(syms)) == 40
    assert all(canonical(s) == s for s in syms)
    assert {parse(s).exchange.value for s in syms} == {"SH", "SZ", "BJ"}


def test_frames_are_canonical_and_deterministic() -> None:
    syms = np.array(make_symbols(5, np.random.default_rng(7)), dtype=object)
    days = trading_sessions(SynthConfig(sessions=3))
    at = datetime(2026, 1, 5, 18, 0, tzinfo=BEIJING)
    a = quote_frames(MarketWalk(syms, np.random.default_rng(3)), days, at)
    b = quote_frames(MarketWalk(syms, np.random.default_rng(3)), days, at)
    for dataset, frame, again in zip(("quotes", "adj_factors"), a, b, strict=True):
        schema = get_schema(dataset)
        assert list(frame.columns) == [*schema.columns, *STAMPED]
        pd.testing.assert_frame_equal(frame, again)
        # The store's own check of a canonical batch (types, nulls, known_at vs ingestion).
        canonical_batch(schema, frame, run_id="t", ingested_at=pd.Timestamp(at))


def test_quotes_are_plausible_bars(built: tuple[SynthConfig, LakeStore]) -> None:
    _, store = built
    q = store.read_all("quotes").sort_values(["symbol", "trade_date"])
    assert len(q) == 5 * 20
    assert not q.duplicated(["symbol", "trade_date"]).any()
    assert all(XSHG.is_session(d) for d in q["trade_date"].unique())
    assert (q["low"] <= q[["open", "close"]].min(axis=1)).all()
    assert (q["high"] >= q[["open", "close"]].max(axis=1)).all()
    limit = q["symbol"].map(lambda s: parse(s).price_limit(is_st=False)) * 100
    assert (q["pct_chg"].abs() <= limit + 0.1).all()
    assert (q["volume"] > 0).all() and (q["volume"] % 100 == 0).all()
    vwap = q["amount"] / q["volume"]
    assert ((vwap >= q["low"] - 0.01) & (vwap <= q["high"] + 0.01)).all()
    closes = [datetime.combine(d, time(15), tzinfo=BEIJING) for d in q["trade_date"]]
    assert list(q["known_at"]) == closes
    assert set(q["known_at_basis"]) == {"session_close"} and set(q["source"]) == {"tushare"}


def test_factors_step_on_ex_dates_consistently_with_prices(
    built: tuple[SynthConfig, LakeStore],
) -> None:
    _, store = built
    q = store.read_all("quotes")
    f = store.read_all("adj_factors")
    m = q.merge(f[["symbol", "trade_date", "adj_factor"]], on=["symbol", "trade_date"])
    m = m.sort_values(["symbol", "trade_date"])
    g = m.groupby("symbol")
    prev_close, prev_f = g["close"].shift(1), g["adj_factor"].shift(1)
    has_prev = prev_close.notna()
    ex = has_prev & (m["adj_factor"] > prev_f)
    assert ex.sum() >= 3
    assert (m["adj_factor"][has_prev] >= prev_f[has_prev]).all()
    # ex-dates: the reference price drops by the factor's step; other days it is the close
    ratio = (prev_close * prev_f / m["adj_factor"])[ex]
    assert np.allclose(m["pre_close"][ex], ratio, rtol=2e-3)
    assert (m["pre_close"][ex] < prev_close[ex]).all()
    assert (m["pre_close"][has_prev & ~ex] == prev_close[has_prev & ~ex]).all()


def test_financials_carry_every_known_at_case(built: tuple[SynthConfig, LakeStore]) -> None:
    _, store = built
    fin = store.read_all("financials")
    assert set(fin["statement"]) == {"income", "balance", "cashflow"}
    assert set(fin["known_at_basis"]) == {
        "announcement",
        "revision",
        "first_seen",
        "statutory_deadline",
    }
    assert (fin["known_at"] <= fin["ingested_at"]).all()
    revised = fin[fin["known_at_basis"] == "revision"]
    assert all(
        k == end_of_beijing_day(d)
        for k, d in zip(revised["known_at"], revised["revision_date"], strict=True)
    )
    assert (revised["revision_date"] > revised["ann_date"]).all()
    restated = fin[fin["known_at_basis"] == "first_seen"]
    assert restated["undated_revision"].all()
    key = ["symbol", "statement", "report_period", "report_type"]
    originals = fin[fin["update_flag"] == "0"].set_index(key)
    assert restated.set_index(key).index.isin(originals.index).all()
    undated = fin[fin["known_at_basis"] == "statutory_deadline"]
    assert undated["ann_date"].isna().all()
    # Every report is announced after its period ends.
    dated = fin[fin["ann_date"].notna()]
    assert (dated["ann_date"] > dated["report_period"]).all()


def test_the_lake_answers(built: tuple[SynthConfig, LakeStore]) -> None:
    cfg, _ = built
    days = trading_sessions(cfg)
    with Catalog(f"sqlite:///{cfg.out / 'catalog.db'}") as cat:
        entries = cat.ledger_entries("quotes")
        assert [e.date_key for e in entries] == days
        assert {(e.symbol, str(e.status), e.rows) for e in entries} == {("*", "OK", 5)}
    now = cfg.ingest_at + timedelta(days=1)
    with Lake(
        cfg.out, catalog_url=f"sqlite:///{cfg.out / 'catalog.db'}", clock=lambda: now
    ) as lake:
        sym = lake.store.read_all("quotes")["symbol"].iloc[0]
        res = lake.quotes(sym, start=days[0], end=days[-1], adjust="qfq")
        assert res.status is ResultStatus.OK and len(res.data) == len(days)
        fin = lake.financials(sym, as_of=date(2026, 5, 1), latest_only=True)
        assert fin.status is ResultStatus.OK
        assert {r["report_period"] for r in fin.data} == {"2025-12-31"}
