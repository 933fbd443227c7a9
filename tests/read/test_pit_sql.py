"""Point-in-time SQL (`Lake.sql`, `Lake.duckdb`): every view holds exactly what was public at
the cutoff — the planted future rows stay out of every view, of the qfq/hfq views anchored at
the cutoff and of every form of the answer — the raw files are not reachable, and a pin clamps
the cutoff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from pitlake.lake.catalog import Catalog
from pitlake.pit import parse_cutoff
from pitlake.read import sql as pit_sql
from pitlake.read.lake import Lake
from pitlake.statuses import ResultStatus
from pitlake.units import ADJUSTED_PRICE_DECIMALS
from tests.lake.conftest import NOW
from tests.read.test_query_future_rows import CUTOFF, MARK, A, planted  # noqa: F401

LATE = "2025-12-31"
EXPECTED_VIEWS = {
    *(f"{d}{s}" for d in pit_sql.VERSIONED for s in ("", "_versions")),
    "quotes_qfq",
    "quotes_hfq",
    "calendar",
}


def _cells(rows: list[dict[str, Any]]) -> list[Any]:
    return [v for row in rows for v in row.values()]


def test_every_view_holds_only_what_was_public_at_the_cutoff(planted: Lake) -> None:  # noqa: F811
    cutoff = parse_cutoff(CUTOFF)
    con = planted.duckdb(as_of=CUTOFF)
    try:
        names = set(pit_sql.views(con))
        assert names == EXPECTED_VIEWS
        for name in sorted(names - {"calendar"}):
            rel = con.sql(f"SELECT * FROM {name}")
            rows = [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]
            assert rows, f"{name}: the rows known at the cutoff are served"
            assert MARK not in _cells(rows), name
            for row in rows:
                assert row["known_at"] <= cutoff, (name, row)
                assert row.get("news_id") not in ("later", "undated"), name
                assert row.get("ann_id") not in ("later", "day_end"), name
                assert str(row.get("planned_date")) != "2025-08-28", name
    finally:
        con.close()


def test_qfq_views_are_anchored_at_the_cutoff(planted: Lake) -> None:  # noqa: F811
    sql = "SELECT trade_date, close, adj_factor FROM {} ORDER BY trade_date"
    for view in ("quotes_qfq", "quotes_hfq"):
        now = planted.sql(sql.format(view), as_of=CUTOFF).rows
        # the 06-05 factor (MARK) is not known yet: the anchor is 1.0, prices stay 10
        assert [(r["trade_date"], r["close"], r["adj_factor"]) for r in now] == [
            ("2025-06-03", 10.0, 1.0),
            ("2025-06-04", 10.0, 1.0),
        ], view
    # the control: later, the new factor is the qfq anchor and old prices scale down
    late = planted.sql(sql.format("quotes_qfq"), as_of=LATE).rows
    assert [r["close"] for r in late] == [  # served at ADJUSTED_PRICE_DECIMALS
        round(MARK / MARK, ADJUSTED_PRICE_DECIMALS),  # 06-03: the correction ingested 06-25
        round(10.0 / MARK, ADJUSTED_PRICE_DECIMALS),
        round(MARK, ADJUSTED_PRICE_DECIMALS),
    ]


def test_the_views_agree_with_the_lake_reads(planted: Lake) -> None:  # noqa: F811
    quotes = planted.quotes(A, start="2025-01-01", end="2025-12-31", as_of=CUTOFF)
    via_sql = planted.sql(
        f"SELECT * FROM quotes WHERE symbol = '{A}' ORDER BY trade_date", as_of=CUTOFF
    )
    cols = ["trade_date", "close", "known_at", "ingested_at"]
    assert [[r[c] for c in cols] for r in via_sql.rows] == [
        [r[c] for c in cols] for r in quotes.rows
    ]
    fin = planted.financials(A, as_of=CUTOFF)
    fin_sql = planted.sql("SELECT * FROM financials ORDER BY report_period", as_of=CUTOFF)
    assert [r["revenue"] for r in fin_sql.rows] == [r["revenue"] for r in fin.rows]


def test_every_form_of_a_sql_answer_keeps_the_future_out(planted: Lake) -> None:  # noqa: F811
    r = planted.sql("SELECT * FROM quotes_versions", as_of=CUTOFF)
    assert r.status is ResultStatus.OK and r.as_of == planted.quotes(A, as_of=CUTOFF).as_of
    assert MARK not in _cells(r.rows)
    assert MARK not in r.to_arrow().column("close").to_pylist()
    assert not (r.to_pandas()["close"] == MARK).any()
    later = planted.sql("SELECT * FROM quotes_versions", as_of=LATE)
    assert MARK in later.to_arrow().column("close").to_pylist()  # the control


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT * FROM read_parquet('{root}/quotes/**/*.parquet')",
        "SELECT * FROM '{root}/quotes/year=2025/part.parquet'",
        "SELECT * FROM glob('{root}/*')",
        "COPY quotes TO '{root}/../leak.csv'",
        "ATTACH '{root}/../other.duckdb' AS other",
        "SET enable_external_access = true",
        "RESET enable_external_access",
        "SET lock_configuration = false",
        "INSTALL httpfs",
    ],
)
def test_the_raw_files_are_not_reachable(planted: Lake, statement: str) -> None:  # noqa: F811
    r = planted.sql(statement.format(root=planted.root), as_of=CUTOFF)
    assert r.status is ResultStatus.INVALID_ARGUMENTS, r.rows
    assert not (planted.root.parent / "leak.csv").exists()


def test_a_pin_clamps_sql_and_the_connection(planted: Lake) -> None:  # noqa: F811
    catalog = Catalog(f"sqlite:///{planted.root / 'catalog.db'}")
    with Lake(planted.root, catalog=catalog, pin_as_of=CUTOFF, clock=lambda: NOW) as pinned:
        r = pinned.sql("SELECT close FROM quotes_versions", as_of=LATE)
        assert r.meta["pinned"] is True and "clamped" in r.message
        assert r.as_of == pinned.quotes(A).as_of and MARK not in _cells(r.rows)
        con = pinned.duckdb(as_of=LATE)
        try:
            closes = [c for (c,) in con.sql("SELECT close FROM quotes").fetchall()]
            assert closes and MARK not in closes
        finally:
            con.close()
    catalog.close()


def test_bad_sql_is_invalid_arguments_not_a_crash(planted: Lake) -> None:  # noqa: F811
    assert planted.sql("SELEC 1").status is ResultStatus.INVALID_ARGUMENTS
    assert planted.sql("").status is ResultStatus.INVALID_ARGUMENTS
    assert planted.sql("SELECT 1", as_of="not a date").status is ResultStatus.INVALID_ARGUMENTS
    empty = planted.sql("SELECT * FROM quotes WHERE false", as_of=CUTOFF)
    assert empty.status is ResultStatus.NO_DATA and empty.to_arrow().num_rows == 0


def test_calendar_view_matches_the_lake_calendar(planted: Lake) -> None:  # noqa: F811
    r = planted.sql(
        "SELECT date, is_open FROM calendar WHERE date BETWEEN '2025-06-01' AND '2025-06-10' "
        "ORDER BY date"
    )
    want = planted.calendar(start="2025-06-01", end="2025-06-10")
    assert [(x["date"], x["is_open"]) for x in r.rows] == [
        (x["date"], x["is_open"]) for x in want.rows
    ]


def test_views_over_read_parquet_stop_reading_with_file_access_off(tmp_path: Path) -> None:
    """The DuckDB 2 fact the module is built on: a view over read_parquet is re-bound at each
    query, so it stops reading once file access is off; a view over a registered Arrow
    dataset keeps reading."""
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), path)
    con = duckdb.connect()
    con.execute(f"CREATE VIEW direct AS SELECT * FROM read_parquet('{path}')")
    con.register("registered", ds.dataset([str(path)], format="parquet"))
    con.execute("CREATE VIEW indirect AS SELECT sum(a) AS s FROM registered")
    con.execute("SET enable_external_access = false")
    with pytest.raises(duckdb.PermissionException):
        con.sql("SELECT * FROM direct").fetchall()
    assert con.sql("SELECT s FROM indirect").fetchall() == [(3,)]
    con.close()


# ---------------------------------------------------------------- pitlake sql


def _cli(*args: str) -> Any:
    from typer.testing import CliRunner

    from pitlake.cli import app

    return CliRunner().invoke(app, ["sql", *args])


def test_cli_formats_answer_the_same_rows(planted: Lake, tmp_path: Path) -> None:  # noqa: F811
    q = "SELECT trade_date, close FROM quotes ORDER BY trade_date"
    lake = ["--lake", str(planted.root), "--as-of", CUTOFF]
    table = _cli(q, *lake)
    assert table.exit_code == 0, table.output
    assert (
        "2025-06-04" in table.output and "2 rows, as of 2025-06-04T16:00:00+08:00" in table.output
    )
    csv = _cli(q, *lake, "--format", "csv")
    assert csv.exit_code == 0 and csv.output.splitlines() == [
        '"trade_date","close"',
        "2025-06-03,10",
        "2025-06-04,10",
    ]
    out = tmp_path / "a.parquet"
    assert _cli(q, *lake, "--format", "parquet", "--output", str(out)).exit_code == 0
    assert pq.read_table(out).column("close").to_pylist() == [10.0, 10.0]
    arrow = _cli(q, *lake, "--format", "arrow")
    assert pa.ipc.open_stream(arrow.stdout_bytes).read_all().num_rows == 2
    late = _cli(q, "--lake", str(planted.root), "--as-of", LATE, "--format", "csv")
    assert "666" in late.output  # the control: the future rows exist, later


def test_cli_exit_codes(planted: Lake, tmp_path: Path) -> None:  # noqa: F811
    bad = _cli("SELEC 1", "--lake", str(planted.root))
    assert bad.exit_code == 2 and "SQL error" in bad.output
    raw = _cli(
        f"SELECT * FROM read_parquet('{planted.root}/quotes/*/*.parquet')",
        "--lake",
        str(planted.root),
    )
    assert raw.exit_code == 2 and "not reachable" in raw.output
    assert _cli("SELECT 1", "--lake", str(tmp_path / "none")).exit_code == 4
    assert _cli("SELECT 1", "--lake", str(planted.root), "--format", "xml").exit_code == 2


def test_qfq_views_plan_an_asof_join_not_a_nested_loop(planted: Lake) -> None:  # noqa: F811
    """Arrow-dataset scans have no row estimates; without asof_loop_join_threshold = 0 DuckDB
    plans the ASOF JOIN as a nested loop (minutes on a full market)."""
    con = planted.duckdb(as_of=CUTOFF)
    try:
        plan = "\n".join(r[1] for r in con.sql("EXPLAIN SELECT * FROM quotes_qfq").fetchall())
    finally:
        con.close()
    assert "ASOF" in plan.upper() and "NESTED_LOOP" not in plan.upper().replace(" ", "_")


def test_cli_reads_the_statement_from_stdin(planted: Lake) -> None:  # noqa: F811
    from typer.testing import CliRunner

    from pitlake.cli import app

    args = ["sql", "-", "--lake", str(planted.root), "--as-of", CUTOFF, "--format", "csv"]
    r = CliRunner().invoke(app, args, input="-- a comment first\nSELECT count(*) AS n FROM quotes")
    assert r.exit_code == 0 and r.output.splitlines() == ['"n"', "2"]


def test_a_statement_builds_only_the_relations_it_names(
    planted: Lake,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Registering every dataset and view cost ~100–190 ms per statement on the synthetic
    market: a statement over one view builds that view and what it reads, nothing else."""
    scanned: list[str] = []
    visible = pit_sql._visible

    def spy(store: Any, schema: Any, *a: Any, **kw: Any) -> Any:
        scanned.append(schema.name)
        return visible(store, schema, *a, **kw)

    monkeypatch.setattr(pit_sql, "_visible", spy)
    r = planted.sql(f"SELECT close FROM quotes WHERE symbol = '{A}'", as_of=CUTOFF)
    assert r.status is ResultStatus.OK and MARK not in _cells(r.rows)
    assert scanned == ["quotes"]
    scanned.clear()
    qfq = planted.sql("SELECT close FROM quotes_qfq", as_of=CUTOFF)
    assert [row["close"] for row in qfq.rows] == [10.0, 10.0]
    assert sorted(scanned) == ["adj_factors", "quotes"]


def test_relations_named_at_run_time_or_listed_are_all_there(planted: Lake) -> None:  # noqa: F811
    built = planted.sql("SELECT close FROM query_table('quotes' || '_versions')", as_of=CUTOFF)
    assert built.status is ResultStatus.OK and MARK not in _cells(built.rows)
    listed = planted.sql("SHOW TABLES", as_of=CUTOFF)
    assert EXPECTED_VIEWS <= {row["name"] for row in listed.rows}
    missing = planted.sql("SELECT * FROM no_such_view", as_of=CUTOFF)
    assert missing.status is ResultStatus.INVALID_ARGUMENTS and "no_such_view" in missing.message


def test_lineage_columns_read_as_dictionaries_are_served_as_plain_strings(
    planted: Lake,  # noqa: F811
) -> None:
    """`source`, `known_at_basis`, `run_id` are scanned as Arrow dictionaries (cheaper than a
    string per row); the answer keeps the stored types and values, and filters on them work."""
    files = planted.store.files("quotes")
    stored = ds.dataset([str(f) for f in files], format="parquet").to_table()
    data = pit_sql._visible(
        planted.store,
        pit_sql.SCHEMAS["quotes"],
        parse_cutoff(LATE),
        None,
        dictionary=pit_sql.LINEAGE_STRINGS,
    )
    assert pa.types.is_dictionary(data.schema.field("run_id").type)
    got = planted.sql("SELECT * FROM quotes_versions", as_of=LATE).to_arrow()
    for c in pit_sql.LINEAGE_STRINGS:
        assert got.schema.field(c).type == pa.string(), c
        assert sorted(got.column(c).to_pylist()) == sorted(stored.column(c).to_pylist()), c
    source = got.column("source")[0].as_py()
    some = planted.sql(
        f"SELECT count(*) AS n FROM quotes_versions WHERE source = '{source}'", as_of=LATE
    )
    assert some.rows[0]["n"] == got.column("source").to_pylist().count(source)
