"""A run's `--symbols` may name index codes as well as stocks: each code is checked against
what some dataset holds, and each dataset is run over the codes it holds (an index code is
never parsed as the stock with the same digits)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from pitlake import schemas
from pitlake.errors import InvalidArgumentsError
from pitlake.pipeline.nightly import run_session
from pitlake.pipeline.planning import check_datasets
from pitlake.pipeline.resources import RunEnv

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
D = date(2025, 6, 3)


def test_stocks_and_index_codes_are_both_run_symbols() -> None:
    assert schemas.run_symbols("600519, 000300.sh,000001.SH,600519.SH") == (
        "600519.SH",
        "000300.SH",
        "000001.SH",
    )


def test_a_code_that_is_neither_names_both_expectations() -> None:
    with pytest.raises(InvalidArgumentsError) as e:
        schemas.run_symbols(["999999.SH"])
    assert "999999" in str(e.value) and "000300.SH" in str(e.value)


def test_a_run_of_index_codes_leaves_the_stock_datasets_out() -> None:
    syms = schemas.run_symbols("000300.SH")
    names = check_datasets(None, schemas.NIGHTLY_DATASETS, syms)
    assert "index_quotes" in names
    assert not {"quotes", "financials", "news"} & set(names)
    stocks = check_datasets(None, schemas.NIGHTLY_DATASETS, schemas.run_symbols("600519.SH"))
    assert "quotes" in stocks and "index_quotes" not in stocks


def test_a_named_dataset_no_symbol_belongs_to_is_refused() -> None:
    with pytest.raises(InvalidArgumentsError, match=r"'quotes'.*A-share codes"):
        check_datasets(["quotes"], schemas.NIGHTLY_DATASETS, ("000300.SH",))
    with pytest.raises(InvalidArgumentsError, match=r"'index_quotes'.*000300\.SH"):
        check_datasets(["index_quotes"], schemas.NIGHTLY_DATASETS, ("600519.SH",))


def test_a_session_run_over_one_index_stores_that_index_only(tmp_path: Path) -> None:
    env = RunEnv(tmp_path / "lake", source=f"replay:{SAMPLE}", run_id="run-i")
    try:
        syms = schemas.run_symbols("000300.SH,600519.SH")
        names = check_datasets(["index_quotes", "quotes"], schemas.NIGHTLY_DATASETS, syms)
        outcomes = {o.dataset: o for o in run_session(env, D, names, syms)}
        assert outcomes["index_quotes"].status == "OK" and outcomes["index_quotes"].rows == 1
        assert outcomes["quotes"].status == "OK" and outcomes["quotes"].rows == 1
    finally:
        env.close()
