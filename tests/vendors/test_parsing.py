"""The one strictness policy of vendors/parsing.py: missing stays missing, garbled is a typed
error, for every vendor alike."""

from __future__ import annotations

from datetime import date, datetime

import numpy as np
import pandas as pd
import pytest

from pitlake.errors import VendorError
from pitlake.vendors.parsing import (
    code_text,
    parse_dates,
    parse_numbers,
    parse_required_dates,
    require_columns,
    symbol_or_none,
)

KW = {"vendor": "v", "endpoint": "e", "column": "c"}


def test_every_date_form_a_vendor_sends_reads_the_same() -> None:
    values = pd.Series(
        [
            "20250603",
            "2025-06-03",
            "2025-06-03 00:00:00",
            "2025-06-03T00:00:00",
            20250603,
            20250603.0,
            date(2025, 6, 3),
            datetime(2025, 6, 3, 15, 0),
            pd.Timestamp("2025-06-03"),
        ],
        dtype=object,
    )
    assert set(parse_dates(values, **KW)) == {date(2025, 6, 3)}


@pytest.mark.parametrize("missing", [None, np.nan, pd.NaT, "", "  "])
def test_a_missing_date_stays_missing(missing: object) -> None:
    out = parse_dates(pd.Series(["20250603", missing], dtype=object), **KW)
    assert out.iloc[0] == date(2025, 6, 3) and out.iloc[1] is None
    with pytest.raises(VendorError, match="no c"):
        parse_required_dates(pd.Series([missing], dtype=object), **KW)


@pytest.mark.parametrize("garbage", ["2025-6-3?", "2025Q4", "20251332", "昨天", "--", "n/a"])
def test_a_garbled_date_is_a_typed_error_never_none(garbage: str) -> None:
    with pytest.raises(VendorError, match=r"c .* is not a date") as err:
        parse_dates(pd.Series(["20250603", garbage]), **KW)
    assert not err.value.retryable
    assert (err.value.vendor, err.value.endpoint) == ("v", "e")


def test_numbers_missing_is_nan_garbled_is_an_error() -> None:
    out = parse_numbers(pd.Series(["1.5", None, ""], dtype=object), **KW)
    assert out.iloc[0] == 1.5 and out.iloc[1:].isna().all()
    with pytest.raises(VendorError, match="is not a number"):
        parse_numbers(pd.Series(["1.5", "n/a"], dtype=object), **KW)


def test_codes_symbols_and_required_columns() -> None:
    assert [code_text(v) for v in (1, 1.0, "1 ", None)] == ["1", "1", "1", None]
    assert symbol_or_none(600519) == "600519.SH"
    assert symbol_or_none("000300.SH") is None  # an index, not an A-share
    with pytest.raises(VendorError, match=r"schema drift: missing columns \['b'\]"):
        require_columns(pd.DataFrame({"a": [1]}), ("a", "b"), vendor="v", endpoint="e")
