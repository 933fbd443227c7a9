"""The Parquet store: layout, versioning and the revision rule, idempotence, atomic replace,
locking against concurrent writers, the raw zone and quarantine."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import pitlake.lake.parquet as parquet_mod
from pitlake.calendar import sessions_between
from pitlake.lake.catalog import Catalog
from pitlake.lake.fs import file_sha256
from pitlake.lake.lease import Leases, PartitionBusyError, partition_leases_table
from pitlake.lake.locking import locked
from pitlake.lake.store import LakeStore
from tests.lake.conftest import (
    INGEST,
    bar,
    bj,
    canonical,
    news_frame,
    news_item,
    statement_row,
    write,
)

A, B, C = "600519.SH", "000001.SZ", "300750.SZ"
REPO = Path(__file__).resolve().parents[2]


def _versions(store: LakeStore, dataset: str = "quotes") -> pd.DataFrame:
    return store.read_all(dataset)


# ---------------------------------------------------------------- layout


def test_rows_land_in_hive_year_partitions_sorted_by_symbol(store: LakeStore) -> None:
    rows = [
        bar(C, "2025-06-03", 3.0),
        bar(A, "2025-06-04", 1.0),
        bar(B, "2024-12-31", 2.0),
        bar(A, "2025-06-03", 1.0),
    ]
    res = write(store, "quotes", rows, run_id="r1")
    assert res.rows_in == 4 and res.rows_added == 4 and res.revisions == 0
    assert sorted(res.written) == ["2024", "2025"]
    part = store.root / "curated" / "quotes" / "year=2025" / "part.parquet"
    assert part.is_file() and (store.root / "curated/quotes/year=2024/part.parquet").is_file()
    got = pq.ParquetFile(part).read().to_pandas()
    assert list(got["symbol"]) == [C, A, A]  # sorted by symbol, then date
    assert list(got["trade_date"].astype(str)) == ["2025-06-03", "2025-06-03", "2025-06-04"]
    assert set(got["run_id"]) == {"r1"}
    assert (got["ingested_at"] == pd.Timestamp(INGEST)).all()
    assert set(got["known_at_basis"]) == {"session_close"}
    # the file is plain Parquet in exactly the schema (no pandas metadata)
    assert pq.read_schema(part).metadata is None or b"pandas" not in pq.read_schema(part).metadata
    assert [p.value for p in store.list_partitions("quotes")] == ["2024", "2025"]
    assert store.dataset_glob("quotes").endswith("curated/quotes/year=*/part.parquet")
    # the result reports every touched partition with its row count and content hash
    by_value = {p.value: p for p in res.partitions}
    assert by_value["2025"].rows == 3 and by_value["2025"].sha256 == file_sha256(part)


def test_reingesting_identical_data_adds_nothing_and_leaves_files_untouched(
    store: LakeStore,
) -> None:
    rows = [bar(A, "2025-06-03", 10.0, turnover_rate=np.nan), bar(B, "2024-12-31", 5.0)]
    first = write(store, "quotes", rows)
    paths = [p.path for p in first.partitions]
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths}
    again = write(store, "quotes", rows, ingested_at=INGEST + timedelta(days=3), run_id="rerun")
    assert again.rows_added == 0 and again.revisions == 0 and again.written == []
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths} == before
    assert {p.sha256 for p in again.partitions} == {p.sha256 for p in first.partitions}
    assert len(_versions(store)) == 2


def test_output_is_deterministic_whatever_the_row_order(tmp_path: Path) -> None:
    rows = [
        bar(s, d, float(i))
        for i, (s, d) in enumerate(
            [(A, "2025-06-03"), (B, "2025-06-03"), (C, "2025-06-04"), (A, "2025-06-04")]
        )
    ]
    one, two = LakeStore(tmp_path / "one"), LakeStore(tmp_path / "two")
    write(one, "quotes", rows, run_id="r")
    write(two, "quotes", list(reversed(rows)), run_id="r")
    assert (
        one.partition_path("quotes", "2025").read_bytes()
        == two.partition_path("quotes", "2025").read_bytes()
    )


# ---------------------------------------------------------------- versions and the revision rule


def test_changed_row_without_a_later_vendor_date_is_first_seen(store: LakeStore) -> None:
    write(store, "quotes", [bar(A, "2025-06-03", 10.0)])
    later = INGEST + timedelta(days=2)
    res = write(store, "quotes", [bar(A, "2025-06-03", 10.5)], ingested_at=later)
    assert res.rows_added == 1 and res.revisions == 1
    v = _versions(store).sort_values("known_at")
    assert list(v["close"]) == [10.0, 10.5]  # the old version stays
    assert list(v["known_at_basis"]) == ["session_close", "first_seen"]
    assert v["known_at"].iloc[1] == pd.Timestamp(later)


def test_changed_row_with_a_later_vendor_date_keeps_that_date(store: LakeStore) -> None:
    first = statement_row(A, "2024-12-31", "2025-03-28", revenue=100.0)
    write(store, "financials", [first])
    restated = statement_row(A, "2024-12-31", "2025-03-28", revision="2025-05-20", revenue=90.0)
    res = write(store, "financials", [restated], ingested_at=INGEST + timedelta(days=1))
    assert res.rows_added == 1 and res.revisions == 0
    v = _versions(store, "financials").sort_values("known_at")
    assert list(v["known_at_basis"]) == ["announcement", "revision"]
    assert v["known_at"].iloc[1] == pd.Timestamp(bj("2025-05-20", "23:59")).replace(
        second=59, microsecond=999999
    )


def test_a_vendor_date_not_later_than_the_stored_version_cannot_date_a_change(
    store: LakeStore,
) -> None:
    write(
        store,
        "financials",
        [statement_row(A, "2024-12-31", "2025-03-28", revision="2025-05-20", revenue=90.0)],
    )
    # a different value dated *before* what we hold: undatable → first_seen
    older = statement_row(A, "2024-12-31", "2025-03-28", revision="2025-04-10", revenue=95.0)
    later = INGEST + timedelta(days=5)
    res = write(store, "financials", [older], ingested_at=later)
    assert res.revisions == 1
    newest = _versions(store, "financials").sort_values("known_at").iloc[-1]
    assert newest["revenue"] == 95.0 and newest["known_at_basis"] == "first_seen"
    assert newest["known_at"] == pd.Timestamp(later)


def test_values_equal_to_any_stored_version_add_nothing(store: LakeStore) -> None:
    write(store, "quotes", [bar(A, "2025-06-03", 10.0)])
    write(store, "quotes", [bar(A, "2025-06-03", 11.0)], ingested_at=INGEST + timedelta(days=1))
    res = write(
        store, "quotes", [bar(A, "2025-06-03", 10.0)], ingested_at=INGEST + timedelta(days=2)
    )
    assert res.rows_added == 0
    assert len(_versions(store)) == 2


def test_nan_matches_nan_and_ignored_columns_do_not_make_versions(store: LakeStore) -> None:
    row = {
        "symbol": A,
        "trade_date": "2025-06-03",
        "reason": "涨幅偏离值达7%",
        "name": "贵州茅台",
        "close": 1500.0,
        "pct_chg": np.nan,
        "seats": None,
    }
    write(store, "dragon_tiger", [row])
    renamed = dict(row, name="茅台")  # `name` is ignore_on_compare
    res = write(store, "dragon_tiger", [renamed], ingested_at=INGEST + timedelta(days=1))
    assert res.rows_added == 0
    assert len(_versions(store, "dragon_tiger")) == 1


def test_two_undatable_changes_of_one_key_in_one_batch(store: LakeStore) -> None:
    write(store, "quotes", [bar(A, "2025-06-03", 10.0)])
    later = INGEST + timedelta(days=1)
    res = write(
        store, "quotes", [bar(A, "2025-06-03", 11.0), bar(A, "2025-06-03", 12.0)], ingested_at=later
    )
    # both changes are undatable; they would share one version key, so the later row wins
    assert res.rows_added == 1 and res.revisions == 1
    assert sorted(_versions(store)["close"]) == [10.0, 12.0]


def test_future_known_at_is_rejected_and_nothing_is_written(store: LakeStore) -> None:
    frame = canonical("quotes", [bar(A, "2025-06-03", 10.0)])
    with pytest.raises(ValueError, match="future"):
        store.write("quotes", frame, run_id="r", ingested_at=bj("2025-06-03", "14:00"))
    assert store.list_partitions("quotes") == []


@pytest.mark.parametrize("drop", ["known_at", "source", "close"])
def test_missing_columns_are_rejected(store: LakeStore, drop: str) -> None:
    frame = canonical("quotes", [bar(A, "2025-06-03", 10.0)]).drop(columns=[drop])
    with pytest.raises(ValueError, match="missing"):
        store.write("quotes", frame, run_id="r", ingested_at=INGEST)


def test_naive_instants_are_rejected(store: LakeStore) -> None:
    frame = canonical("quotes", [bar(A, "2025-06-03", 10.0)])
    frame["known_at"] = frame["known_at"].dt.tz_localize(None)
    with pytest.raises(ValueError, match="naive"):
        store.write("quotes", frame, run_id="r", ingested_at=INGEST)
    with pytest.raises(ValueError, match="timezone-aware"):
        store.write(
            "quotes",
            canonical("quotes", [bar(A, "2025-06-03", 1.0)]),
            run_id="r",
            ingested_at=datetime(2025, 6, 20),
        )


def test_news_versions_are_found_across_known_at_month_partitions(store: LakeStore) -> None:
    item = news_item("n1", "茅台发布公告", bj("2025-05-30", "20:00"), [A])
    write(store, "news", news_frame([item]))
    assert [p.value for p in store.list_partitions("news")] == ["2025-05"]
    # the same id re-fetched a month later: identical → nothing, even though "now" is June
    res = write(store, "news", news_frame([item]), ingested_at=INGEST)
    assert res.rows_added == 0
    # a changed title for the same id with no later date → first_seen, lands in June
    changed = dict(item, title="茅台发布公告（更正）")
    res = write(store, "news", news_frame([changed]), ingested_at=INGEST + timedelta(days=1))
    assert res.rows_added == 1 and res.revisions == 1
    assert [p.value for p in store.list_partitions("news")] == ["2025-05", "2025-06"]


# ---------------------------------------------------------------- crash safety


def test_a_crash_before_the_rename_leaves_the_old_partition(
    store: LakeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(store, "quotes", [bar(A, "2025-06-03", 10.0)])
    path = store.partition_path("quotes", "2025")
    before = path.read_bytes()
    seen: list[Path] = []

    def power_cut(tmp: Path, final: Path) -> None:
        assert tmp.parent == final.parent and tmp.stat().st_size > 0  # temp fully written
        seen.append(tmp)
        raise RuntimeError("power cut")

    monkeypatch.setattr(parquet_mod, "_publish", power_cut)
    with pytest.raises(RuntimeError, match="power cut"):
        write(store, "quotes", [bar(A, "2025-06-04", 11.0)], ingested_at=INGEST + timedelta(days=1))
    assert seen and path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [".lock", "part.parquet"]
    monkeypatch.undo()
    assert len(_versions(store)) == 1  # still readable
    # the lock was released: the next writer goes through
    res = write(
        store, "quotes", [bar(A, "2025-06-04", 11.0)], ingested_at=INGEST + timedelta(days=2)
    )
    assert res.rows_added == 1 and len(_versions(store)) == 2


def test_a_temp_file_left_by_a_killed_writer_is_ignored_then_cleaned(store: LakeStore) -> None:
    write(store, "quotes", [bar(A, "2025-06-03", 10.0)])
    stale = store.partition_dir("quotes", "2025") / ".part.parquet.deadbeef.tmp"
    stale.write_bytes(b"PAR1 half a file")
    assert store.files("quotes") == [store.partition_path("quotes", "2025")]
    assert len(_versions(store)) == 1
    write(store, "quotes", [bar(A, "2025-06-04", 11.0)], ingested_at=INGEST + timedelta(days=1))
    assert not stale.exists()


# ---------------------------------------------------------------- concurrent writers


SESSIONS_2025 = [d.isoformat() for d in sessions_between(date(2025, 1, 2), date(2025, 6, 30))]


def test_concurrent_threads_writing_one_partition_lose_nothing(store: LakeStore) -> None:
    symbols = [A, B, C, "601318.SH"]
    n = 8

    def writer(sym: str) -> None:
        for i in range(n):
            write(
                store,
                "quotes",
                [bar(sym, SESSIONS_2025[i], 10.0 + i)],
                ingested_at=INGEST + timedelta(seconds=i),
                run_id=f"{sym}-{i}",
            )

    with ThreadPoolExecutor(len(symbols)) as pool:
        list(pool.map(writer, symbols))
    got = _versions(store)
    assert len(got) == n * len(symbols)
    assert got.groupby("symbol").size().to_dict() == dict.fromkeys(symbols, n)


CHILD = r"""
import sys
from datetime import timedelta
from pitlake.lake.store import LakeStore
from tests.lake.conftest import INGEST, bar, canonical
root, symbol, days = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
store = LakeStore(root)
frames = [canonical("quotes", [bar(symbol, d, 10.0 + i)]) for i, d in enumerate(days)]
print("ready", flush=True)
for i, frame in enumerate(frames):
    store.write("quotes", frame, run_id=f"{symbol}-{i}", ingested_at=INGEST + timedelta(seconds=i))
print("done", flush=True)
"""


def test_concurrent_processes_writing_one_partition_lose_nothing(store: LakeStore) -> None:
    n = 15
    days = ",".join(SESSIONS_2025[:n])
    symbols = [A, B]
    # Hold the partition lock until both children are ready, so their writes overlap.
    with locked(store.partition_dir("quotes", "2025")):
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", CHILD, str(store.root), sym, days],
                cwd=REPO,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for sym in symbols
        ]
        for p in procs:
            assert p.stdout is not None
            assert p.stdout.readline().strip() == "ready"
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert "done" in out
    got = _versions(store)
    assert len(got) == n * len(symbols)
    assert got.groupby("symbol").size().to_dict() == dict.fromkeys(symbols, n)


# ---------------------------------------------------------------- raw zone and quarantine


def test_raw_capture_keeps_vendor_columns_params_and_fetch_time(store: LakeStore) -> None:
    frame = pd.DataFrame(
        {
            "日期": ["2025-06-03", "2025-06-04"],
            "收盘": [10.0, 11.0],
            "mixed": [1, "x"],  # Arrow cannot type this: stored as text
            "blob": [{"a": 1}, None],
        }
    )
    fetched = bj("2025-06-04", "01:30")  # Beijing 06-04 although UTC is still 06-03
    path = store.raw.write(
        "akshare",
        "stock_zh_a_hist",
        {"symbol": "600519", "token": "SECRET", "nested": {"api_key": "K", "x": 1}},
        frame,
        fetched_at=fetched,
        run_id="run1",
        seq=3,
    )
    assert path == store.root / "raw/akshare/stock_zh_a_hist/fetch_date=2025-06-04/run1-3.parquet"
    table = pq.read_table(path)
    assert table.column_names == ["日期", "收盘", "mixed", "blob"]
    assert table.column("mixed").to_pylist() == ["1", "x"]
    meta = table.schema.metadata
    params = json.loads(meta[b"pitlake.params"])
    assert params == {"symbol": "600519", "nested": {"x": 1}}
    assert b"SECRET" not in path.read_bytes() and b"api_key" not in path.read_bytes()
    assert meta[b"pitlake.fetched_at"] == b"2025-06-04T01:30:00+08:00"


@pytest.mark.parametrize(
    "vendor,endpoint,run_id",
    [("../evil", "x", "r"), ("akshare", "a/b", "r"), ("akshare", "x", "../../r"), ("", "x", "r")],
)
def test_raw_capture_refuses_unsafe_path_parts(
    store: LakeStore, vendor: str, endpoint: str, run_id: str
) -> None:
    with pytest.raises(ValueError, match="unsafe"):
        store.raw.write(
            vendor, endpoint, {}, pd.DataFrame({"a": [1]}), fetched_at=INGEST, run_id=run_id, seq=0
        )
    assert not (store.root / "raw").exists() or not any((store.root / "raw").rglob("*.parquet"))


def test_quarantine_keeps_the_batch_and_the_report(store: LakeStore) -> None:
    frame = canonical("quotes", [bar(A, "2025-06-03", 10.0, low=12.0)])
    report = {"failed": [{"expectation": "low <= close"}], "at": INGEST}
    path = store.quarantine.keep("quotes", "run7", frame, report)
    assert path == store.root / "quarantine/quotes/run7/batch.parquet"
    assert pq.read_table(path).num_rows == 1
    saved = json.loads((path.parent / "report.json").read_text())
    assert saved["failed"] == [{"expectation": "low <= close"}]
    assert saved["at"] == "2025-06-20T18:00:00+08:00"
    second = store.quarantine.keep("quotes", "run7", frame, {}, label="2025-06-04")
    assert second.name == "batch-2025-06-04.parquet" and path.exists()


# ---------------------------------------------------------------- coordinated writes


def _leased(store: LakeStore, catalog: Catalog, **options: object) -> LakeStore:
    store.coordinator = Leases(catalog, heartbeat=False, **options)  # type: ignore[arg-type]
    return store


def _lease_rows(catalog: Catalog) -> dict[str, tuple[str | None, int]]:
    with catalog.engine.connect() as conn:
        rows = conn.execute(partition_leases_table.select()).all()
    return {r.name: (r.holder, int(r.token)) for r in rows}


def test_a_coordinated_write_records_its_partition_files_inside_the_hold(
    store: LakeStore, sqlite_catalog: Catalog
) -> None:
    _leased(store, sqlite_catalog)
    res = write(store, "quotes", [bar(A, "2024-12-31", 9.0), bar(A, "2025-06-03", 10.0)])
    assert res.recorded and res.written == ["2024", "2025"]
    records = {r.partition: r for r in sqlite_catalog.partition_files("quotes")}
    for p in res.partitions:
        assert records[p.value].sha256 == file_sha256(p.path) == p.sha256
        assert records[p.value].rows == p.rows and records[p.value].run_id == res.run_id
    # released (no holder), and the next write of a partition takes a higher token
    assert _lease_rows(sqlite_catalog) == {"quotes/2024": (None, 1), "quotes/2025": (None, 1)}
    write(store, "quotes", [bar(A, "2025-06-04", 11.0)])
    assert _lease_rows(sqlite_catalog)["quotes/2025"] == (None, 2)


def test_a_news_write_holds_the_dataset_and_each_partition(
    store: LakeStore, sqlite_catalog: Catalog
) -> None:
    _leased(store, sqlite_catalog)
    item = news_item("n1", "茅台发布公告", bj("2025-05-30", "20:00"), [A])
    res = write(store, "news", news_frame([item]))
    assert res.recorded and res.written == ["2025-05"]
    assert set(_lease_rows(sqlite_catalog)) == {"news/*", "news/2025-05"}
    [rec] = sqlite_catalog.partition_files("news")
    assert rec.sha256 == file_sha256(store.partition_path("news", "2025-05"))


def test_an_uncoordinated_write_leaves_the_catalog_to_its_caller(
    store: LakeStore, sqlite_catalog: Catalog
) -> None:
    res = write(store, "quotes", [bar(A, "2025-06-03", 10.0)])
    assert not res.recorded and sqlite_catalog.partition_files() == []


def test_a_partition_leased_elsewhere_makes_the_writer_wait_then_give_up(
    store: LakeStore, sqlite_catalog: Catalog
) -> None:
    waits: list[float] = []
    other = Leases(sqlite_catalog, holder="other-host", heartbeat=False)
    held = other.try_acquire("quotes", "2025")
    assert held is not None
    _leased(store, sqlite_catalog, wait_s=1.0, wait=waits.append)
    with pytest.raises(PartitionBusyError, match="quotes/2025") as err:
        write(store, "quotes", [bar(A, "2025-06-03", 10.0)])
    assert err.value.path == "quotes/2025" and round(sum(waits), 6) == 1.0
    assert store.list_partitions("quotes") == []  # nothing written
    held.release()
    write(store, "quotes", [bar(A, "2025-06-03", 10.0)])
    assert [p.value for p in store.list_partitions("quotes")] == ["2025"]
