"""Fixtures for the lake tests: canonical frames built here (no vendor adapters), a store, a
catalog on SQLite and (when available) PostgreSQL, and a Lake with an injected clock."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from pitlake.schemas import get as get_schema

from pitlake.calendar import BEIJING
from pitlake.lake.catalog import Catalog
from pitlake.lake.catalog_engine import resolve_url
from pitlake.lake.store import LakeStore
from pitlake.pit import apply_known_at
from pitlake.read.lake import Lake

UTC = timezone.utc
# "Now" for every Lake in these tests: late enough that every planted fact is in the past.
NOW = datetime(2025, 12, 31, 12, 0, tzinfo=BEIJING)
# The default ingestion instant of test batches (after the June 2025 sessions used below).
INGEST = datetime(2025, 6, 20, 18, 0, tzinfo=BEIJING)
PG_URL = os.environ.get("PITLAKE_TEST_PG_URL") or None
IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def bj(d: str, t: str = "00:00") -> datetime:
    """'2025-06-03', '15:00' → aware Beijing instant."""
    hh, mm = (int(x) for x in t.split(":"))
    return datetime.combine(date.fromisoformat(d), time(hh, mm), tzinfo=BEIJING)


def _default(field: pa.Field) -> Any:
    if pa.types.is_floating(field.type):
        return np.nan
    if pa.types.is_boolean(field.type):
        return False
    return None


def canonical(
    dataset: str,
    rows: list[dict[str, Any]],
    *,
    source: str = "tushare",
    fetched_at: datetime = INGEST,
) -> pd.DataFrame:
    """Canonical rows for `dataset`: missing columns filled (NaN / None / False), date strings
    parsed, and known_at / known_at_basis from the dataset's rule unless a row gives them."""
    schema = get_schema(dataset)
    df = pd.DataFrame(rows)
    for f in schema.fields:
        if f.name not in df.columns:
            df[f.name] = [_default(f)] * len(df)
        elif pa.types.is_date32(f.type):
            df[f.name] = [date.fromisoformat(v) if isinstance(v, str) else v for v in df[f.name]]
    if "known_at" not in df.columns:
        stamped = apply_known_at(schema.known_at, df[schema.columns], fetched_at)
        df["known_at"] = stamped["known_at"]
        df["known_at_basis"] = stamped["known_at_basis"]
    else:
        df["known_at"] = pd.to_datetime(df["known_at"], utc=True).astype("datetime64[us, UTC]")
        if "known_at_basis" not in df.columns:
            df["known_at_basis"] = "published"
    if "source" not in df.columns:
        df["source"] = source
    return df


def bar(symbol: str, day: str, close: float, **kw: Any) -> dict[str, Any]:
    """One daily bar with open = high = low = close unless given."""
    row = {
        "symbol": symbol,
        "trade_date": day,
        "open": close,
        "high": close,
        "low": close,
        "close": close,
        "pre_close": close,
        "volume": 1000.0,
        "amount": 1000.0 * close,
        "pct_chg": 0.0,
        "turnover_rate": 1.0,
    }
    row.update(kw)
    return row


def factor(symbol: str, day: str, value: float) -> dict[str, Any]:
    return {"symbol": symbol, "trade_date": day, "adj_factor": value}


def statement_row(
    symbol: str,
    period: str,
    ann: str | None,
    *,
    statement: str = "income",
    revision: str | None = None,
    report_type: str = "1",
    **items: float,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "symbol": symbol,
        "statement": statement,
        "report_period": period,
        "report_type": report_type,
        "ann_date": date.fromisoformat(ann) if ann else None,
        "revision_date": date.fromisoformat(revision) if revision else None,
        "update_flag": "1",
        "undated_revision": False,
    }
    row.update(items)
    return row


def news_item(
    news_id: str,
    title: str,
    published: datetime | None,
    symbols: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "news_id": news_id,
        "symbols": symbols or [],
        "title": title,
        "content": f"content of {title}",
        "url": f"https://example.invalid/{news_id}",
        "published_at": published,
        "sources": ["akshare:em"],
    }


def news_frame(items: list[dict[str, Any]], *, fetched_at: datetime = INGEST) -> pd.DataFrame:
    """News rows with the news rule (publish time, else first_seen = fetched_at)."""
    df = pd.DataFrame(items)
    df["published_at"] = pd.to_datetime(
        [p if p is not None else pd.NaT for p in df["published_at"]], utc=True
    ).astype("datetime64[us, UTC]")
    return canonical("news", df.to_dict("records"), source="akshare", fetched_at=fetched_at)


def write(
    store: LakeStore,
    dataset: str,
    rows: list[dict[str, Any]] | pd.DataFrame,
    *,
    ingested_at: datetime = INGEST,
    run_id: str | None = None,
    source: str = "tushare",
) -> Any:
    frame = rows if isinstance(rows, pd.DataFrame) else canonical(dataset, rows, source=source)
    return store.write(
        dataset, frame, run_id=run_id or f"run-{uuid.uuid4().hex[:8]}", ingested_at=ingested_at
    )


# ---------------------------------------------------------------- fixtures


@pytest.fixture(autouse=True)
def _no_catalog_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests choose their catalog explicitly; an exported URL must not redirect them."""
    monkeypatch.delenv("PITLAKE_CATALOG_URL", raising=False)


@pytest.fixture
def lake_root(tmp_path: Path) -> Path:
    return tmp_path / "lake"


@pytest.fixture
def store(lake_root: Path) -> LakeStore:
    return LakeStore(lake_root)


@pytest.fixture
def sqlite_catalog(lake_root: Path) -> Iterator[Catalog]:
    cat = Catalog(lake_root=lake_root)
    yield cat
    cat.close()


@pytest.fixture
def lake(lake_root: Path, sqlite_catalog: Catalog) -> Iterator[Lake]:
    with Lake(lake_root, catalog=sqlite_catalog, clock=lambda: NOW) as lk:
        yield lk


def _backends() -> list[Any]:
    # PostgreSQL runs when scripts/test.sh started it; on CI it must have (a missing URL there
    # fails the postgres tests instead of quietly dropping them).
    out: list[Any] = ["sqlite"]
    if PG_URL or IN_CI:
        out.append(pytest.param("postgres", marks=pytest.mark.postgres))
    return out


def _with_search_path(url: str, schema: str) -> str:
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}"


@contextmanager
def fresh_pg_url() -> Iterator[str | None]:
    """A fresh PostgreSQL schema's URL, or None (SQLite beside the lake)."""
    if not PG_URL:
        if IN_CI:
            pytest.fail("CI=true but PITLAKE_TEST_PG_URL is not set (scripts/test.sh starts one)")
        yield None
        return
    from sqlalchemy import create_engine

    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(resolve_url(PG_URL, None))
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield _with_search_path(PG_URL, schema)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture(params=_backends())
def catalog(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Catalog]:
    """The same catalog tests on SQLite and on PostgreSQL (one fresh schema per test)."""
    if request.param == "sqlite":
        cat = Catalog(lake_root=tmp_path / "lake")
        yield cat
        cat.close()
        return
    if not PG_URL:
        pytest.fail(
            "CI=true but PITLAKE_TEST_PG_URL is not set: scripts/test.sh starts PostgreSQL "
            "with scripts/start-postgres.sh when its binaries are installed"
        )
    from sqlalchemy import create_engine

    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(resolve_url(PG_URL, None))
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    cat = Catalog(_with_search_path(PG_URL, schema))
    try:
        yield cat
    finally:
        cat.close()
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def days(start: str, n: int) -> list[str]:
    d = date.fromisoformat(start)
    return [(d + timedelta(days=i)).isoformat() for i in range(n)]
