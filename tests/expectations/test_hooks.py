"""The gate's checks come from the spec (kind + quality hooks), never from the dataset's name:
a copy of a spec under another name gets the same suite and the same derived columns."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pitlake.expectations.gate import derived_columns
from pitlake.expectations.hooks import HOOKS, hooks_of
from pitlake.expectations.suites import expectations_for

from pitlake import schemas

from .conftest import BUILDERS, ctx


def _checks(dataset: str) -> list[str]:
    return [e.meta["check"] for e in expectations_for(dataset)]


def test_every_spec_names_only_known_hooks() -> None:
    for spec in schemas.SCHEMAS.values():
        assert all(h in HOOKS for h in spec.quality), spec.name


@pytest.mark.parametrize("dataset", ["quotes", "dragon_tiger", "financials", "adj_factors"])
def test_a_renamed_copy_of_a_spec_gets_the_same_checks(
    dataset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = dataclasses.replace(schemas.get(dataset), name="renamed_copy")
    monkeypatch.setitem(schemas.SCHEMAS, "renamed_copy", copy)
    assert _checks("renamed_copy") == _checks(dataset)
    frame, c = BUILDERS[dataset](), ctx()
    mine, theirs = derived_columns("renamed_copy", frame, c), derived_columns(dataset, frame, c)
    assert mine.keys() == theirs.keys()
    for k in mine:
        np.testing.assert_array_equal(np.asarray(mine[k]), np.asarray(theirs[k]))


def test_a_spec_without_hooks_has_no_dataset_specific_checks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bare = dataclasses.replace(schemas.get("quotes"), name="bare", quality=())
    monkeypatch.setitem(schemas.SCHEMAS, "bare", bare)
    assert "ohlc_low" in _checks("quotes") and "price_limit" in _checks("quotes")
    assert "ohlc_low" not in _checks("bare") and "price_limit" not in _checks("bare")
    assert "trade_date_is_session" in _checks("bare")  # the kind's checks stay


def test_an_unknown_hook_is_named() -> None:
    spec = dataclasses.replace(schemas.get("quotes"), quality=("ohlc", "no_such_hook"))
    with pytest.raises(KeyError, match="no_such_hook"):
        hooks_of(spec)
