from datetime import date

import pytest

from pitlake import symbols as sym
from pitlake.errors import InvalidArgumentsError


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("600519", "600519.SH"),
        ("sh600519", "600519.SH"),
        ("SH600519", "600519.SH"),
        ("600519.SH", "600519.SH"),
        ("600519.sh", "600519.SH"),
        ("600519.XSHG", "600519.SH"),
        ("sz000001", "000001.SZ"),
        ("000001.SZ", "000001.SZ"),
        ("000001.XSHE", "000001.SZ"),
        ("bj430047", "430047.BJ"),
        ("430047.BJ", "430047.BJ"),
        ("920118", "920118.BJ"),
        ("688981", "688981.SH"),
        ("300750", "300750.SZ"),
        (" 600519 ", "600519.SH"),
    ],
)
def test_every_vendor_form_parses(raw: str, canonical: str) -> None:
    assert sym.canonical(raw) == canonical


@pytest.mark.parametrize(
    ("raw", "board", "limit"),
    [
        ("600519", sym.Board.MAIN, 0.10),
        ("000001", sym.Board.MAIN, 0.10),
        ("688981", sym.Board.STAR, 0.20),
        ("300750", sym.Board.CHINEXT, 0.20),
        ("430047", sym.Board.BSE, 0.30),
        ("920118", sym.Board.BSE, 0.30),
    ],
)
def test_board_and_limit(raw: str, board: sym.Board, limit: float) -> None:
    s = sym.parse(raw)
    assert s.board is board
    assert s.price_limit(date(2025, 6, 3)) == limit


def test_st_limit_until_rule_change() -> None:
    s = sym.parse("600234")
    assert s.price_limit(date(2025, 6, 3), is_st=True) == 0.05
    assert s.price_limit(date(2026, 7, 6), is_st=True) == 0.10
    # ST on STAR keeps the board limit
    assert sym.parse("688981").price_limit(date(2025, 6, 3), is_st=True) == 0.20


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        ("tushare", "600519.SH"),
        ("bare", "600519"),
        ("sina", "sh600519"),
        ("tencent", "sh600519"),
        ("em_f10", "SH600519"),
        ("mic", "600519.XSHG"),
    ],
)
def test_render_vendor_forms(form: str, expected: str) -> None:
    assert sym.to_vendor("600519.SH", form) == expected


def test_render_bse_and_sz() -> None:
    assert sym.to_vendor("430047", "sina") == "bj430047"
    assert sym.to_vendor("000001", "tencent") == "sz000001"
    assert sym.to_vendor("000001", "mic") == "000001.XSHE"


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "abc",
        "60051",
        "6005190",
        "600519.SZ",
        "000001.SH",
        "999999",
        "../../etc/passwd",
        "600519'; DROP TABLE x;--",
        "sh60051a",
        None,
        600519,
    ],
)
def test_garbage_raises_naming_the_input(garbage: object) -> None:
    with pytest.raises(InvalidArgumentsError) as err:
        sym.canonical(garbage)
    assert repr(garbage)[:20] in str(err.value) or str(garbage)[:10] in str(err.value)


def test_long_garbage_is_truncated_in_message() -> None:
    with pytest.raises(InvalidArgumentsError) as err:
        sym.canonical("x" * 500)
    assert len(str(err.value)) < 200


def test_canonical_many_dedupes_and_splits() -> None:
    assert sym.canonical_many("600519, sh600519,000001") == ["600519.SH", "000001.SZ"]
    assert sym.canonical_many(None) == []
    with pytest.raises(InvalidArgumentsError):
        sym.canonical_many(["600519", "bogus"])


def test_unknown_form_rejected() -> None:
    with pytest.raises(InvalidArgumentsError, match="form"):
        sym.to_vendor("600519", "bloomberg")
