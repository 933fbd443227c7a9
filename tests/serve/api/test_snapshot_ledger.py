"""A snapshot reads the ledger once per request on one catalog connection shared by its
sections (`Catalog.reading`): the same answer as a connection per query, and a fetch recorded
between two snapshots shows in the second."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from pitlake.lake import readonly
from pitlake.lake.catalog import Catalog
from pitlake.serve.api.service import QueryService
from pitlake.serve.api.snapshot import snapshot
from tests.lake.conftest import bj
from tests.serve.api.lakebuild import A, B
from tests.serve.api.test_snapshot_status import sections
from tests.serve.api.test_snapshot_status import snapshot as get_snapshot


def test_a_fetch_recorded_between_two_snapshots_shows_in_the_second(
    writable_lake: Path, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(writable_lake, token="")
    ask = {"symbols": f"{A},{B}", "date": "2025-06-06", "as_of": "2025-06-08"}
    first = sections(get_snapshot(client, **ask))["valuation"]
    assert first["status"] == "NOT_READY" and first["date_status"] == "STALE"
    writer = Catalog(lake_root=writable_lake)
    writer.record_ledger(
        "valuation",
        "2025-06-06",
        "UPSTREAM_ERROR",
        message="daily_basic: 502 from the vendor",
        at=bj("2025-06-21", "09:00"),  # a re-fetch after the lake was built
    )
    writer.close()
    second = sections(get_snapshot(client, **ask))["valuation"]  # the same app, the same Lake
    assert second["status"] == "UPSTREAM_ERROR"
    assert second["effective_trade_date"] == "2025-06-05" and second["date_status"] == "STALE"
    traced = [t for t in second["meta"]["vendor_trace"] if t["date"] == "2025-06-06"]
    assert [(t["status"], t["message"]) for t in traced] == [
        ("UPSTREAM_ERROR", "daily_basic: 502 from the vendor")
    ]


def _checkouts(service: QueryService, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one at each catalog connection opened, by SQLAlchemy's pool or for
    the ledger rows read without it (`catalog_sqlite`, decision 54)."""
    _ = service.lake(None).catalog.engine  # made, with its own first connection, before
    seen: list[int] = []
    real = readonly.connect_read_only

    def counted(*args: Any, **kwargs: Any) -> Any:
        seen.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(readonly, "connect_read_only", counted)
    return seen


def test_a_snapshot_reads_the_catalog_on_one_connection(
    service: QueryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    ask: dict[str, Any] = {"date": "2025-06-06", "as_of": "2025-06-08"}
    snapshot(service, f"{A},{B}", **ask)  # warm: the calendar and the Lake are opened
    seen = _checkouts(service, monkeypatch)
    body = snapshot(service, f"{A},{B}", **ask).envelope
    assert len(body["data"]) == 10
    assert len(seen) == 1  # one per query (13 here) before


@contextmanager
def _per_query(_: Catalog) -> Iterator[None]:
    yield


@pytest.mark.parametrize(
    "ask",
    [
        {"date": "2025-06-05", "as_of": "2025-06-08"},
        {"date": "2025-06-06", "as_of": "2025-06-08"},
        {"date": "2025-06-09", "as_of": "2025-06-12"},
        {"as_of": "2025-06-08"},
        {"as_of": "2025-06-03T14:00:00+08:00"},
    ],
)
def test_the_shared_connection_answers_as_a_connection_per_query(
    service: QueryService, monkeypatch: pytest.MonkeyPatch, ask: dict[str, Any]
) -> None:
    shared = snapshot(service, f"{A},{B},000002.SZ", **ask).envelope
    monkeypatch.setattr(Catalog, "reading", _per_query)
    seen = _checkouts(service, monkeypatch)
    alone = snapshot(service, f"{A},{B},000002.SZ", **ask).envelope
    assert len(seen) > 5  # really a connection per query
    assert alone == shared
    assert {s["status"] for s in shared["data"]} != {"OK"}  # gaps and their traces compared too
