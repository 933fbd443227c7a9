"""Units under the three surfaces: the fast envelope, parameter syntax, pins, redaction."""

from __future__ import annotations

import logging
from datetime import datetime

import pytest
from pitlake.schemas import quotes

from pitlake.calendar import BEIJING
from pitlake.errors import InvalidArgumentsError
from pitlake.serve.api.params import (
    dataset_list,
    parse_pin,
    pin_table,
    repair_as_of,
    split_list,
)
from pitlake.serve.api.redact import RedactSecrets, redact_bytes, redact_obj, redact_text
from pitlake.serve.api.service import QueryService, envelope_of
from tests.serve.api.lakebuild import A, B


@pytest.mark.parametrize(
    "ask",
    [
        lambda lk: lk.quotes(A, end="2025-06-06", as_of="2025-06-07", adjust="qfq"),
        lambda lk: lk.valuation(A, end="2025-06-06", as_of="2025-06-07"),
        lambda lk: lk.financials(A, as_of="2025-06-07"),
        lambda lk: lk.news(A, as_of="2025-06-07"),
        lambda lk: lk.calendar(start="2025-06-01", end="2025-06-07", as_of="2025-06-07"),
        lambda lk: lk.quotes("nope"),
    ],
)
def test_the_fast_envelope_equals_result_to_dict(service: QueryService, ask) -> None:  # type: ignore[no-untyped-def]
    result = ask(service.lake())
    assert envelope_of(result) == result.to_dict()


def test_split_lists_merge_split_and_bound() -> None:
    assert split_list(["600519.SH", "000001.SZ,300750"], "sh600000, ") == [
        "600519.SH",
        "000001.SZ",
        "300750",
        "sh600000",
    ]
    assert split_list(None, "", []) is None
    with pytest.raises(InvalidArgumentsError, match="too many"):
        split_list(",".join(["600519"] * 501))
    with pytest.raises(InvalidArgumentsError, match="too long"):
        split_list("6" * 41)


def test_dataset_names() -> None:
    assert dataset_list("quotes, Dragon-Tiger", ["news", "quotes"]) == [
        "quotes",
        "dragon_tiger",
        "news",
    ]
    with pytest.raises(InvalidArgumentsError, match="unknown dataset") as refused:
        dataset_list("quotes,../etc")
    assert "did you mean" not in str(refused.value)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("quote", "quotes"), ("valuations", "valuation"), ("dragon_tigers", "dragon-tiger")],
)
def test_a_misspelled_dataset_gets_a_did_you_mean(typed: str, meant: str) -> None:
    from pitlake.serve.api.params import dataset_name

    with pytest.raises(InvalidArgumentsError, match=f"did you mean '{meant}'"):
        dataset_name(typed)


@pytest.mark.parametrize(
    ("raw", "fixed"),
    [
        ("2025-06-03T15:00 08:00", "2025-06-03T15:00+08:00"),
        ("2025-06-03T15:00:00.5 0800", "2025-06-03T15:00:00.5+0800"),
        ("2025-06-03 15:00:00 08:00", "2025-06-03 15:00:00+08:00"),
        ("2025-06-03", "2025-06-03"),
        ("2025-06-03T15:00+08:00", "2025-06-03T15:00+08:00"),
        ("not a date 08:00", "not a date 08:00"),
    ],
)
def test_a_space_for_plus_is_repaired_only_in_timestamps(raw: str, fixed: str) -> None:
    assert repair_as_of(raw) == fixed


def test_pins() -> None:
    name, at = parse_pin("backtest-2025.06=2025-06-05")
    assert name == "backtest-2025.06" and at == datetime(
        2025, 6, 5, 23, 59, 59, 999999, tzinfo=BEIJING
    )
    assert set(pin_table(["a=2025-06-05", "b=2025-06-06T15:00:00+08:00"])) == {"a", "b"}
    for bad in ("noequals", "=2025-06-05", "../x=2025-06-05", "a=someday"):
        with pytest.raises(InvalidArgumentsError):
            parse_pin(bad)


def test_redaction_masks_raw_and_json_escaped_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = 'tok"en\\0123456789'
    monkeypatch.setenv("TUSHARE_TOKEN", secret)
    monkeypatch.setenv("TS_TOKEN", "abc")  # too short to be a token: left alone
    assert redact_text(f"url?token={secret}&x=abc") == "url?token=***&x=abc"
    assert redact_obj({"m": [f"a {secret} b"]}) == {"m": ["a *** b"]}
    assert redact_bytes(b'{"m":"tok\\"en\\\\0123456789"}') == b'{"m":"***"}'
    record = logging.LogRecord("pitlake.api", logging.ERROR, __file__, 1, "bad %s", (secret,), None)
    RedactSecrets().filter(record)
    assert record.getMessage() == "bad ***"


def test_service_answers_without_a_pin_are_unpinned(service: QueryService) -> None:
    answer = service.read(quotes.SCHEMA, symbols=B, date="2025-06-05", as_of="2025-06-06")
    assert answer.ok and answer.fault is None
    assert answer.envelope["meta"]["pinned"] is False and "pin" not in answer.envelope["meta"]
    assert answer.public() == answer.envelope  # nothing to mask
