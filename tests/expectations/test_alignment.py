"""One nightly run, one effective trade date: a dataset carrying another date is misaligned."""

from __future__ import annotations

from datetime import date

from pitlake.expectations import check_alignment, validate_run
from pitlake.expectations.verdict import Outcome

from pitlake.statuses import LedgerStatus
from tests.expectations.conftest import BUILDERS, PREV, VALIDATED, D, ctx


def test_aligned_run_passes() -> None:
    batches = {name: BUILDERS[name](D) for name in ("quotes", "valuation", "dragon_tiger")}
    verdicts = check_alignment(batches, D, run_id="run-1", at=VALIDATED)
    assert {v.outcome for v in verdicts.values()} == {Outcome.PASS}
    assert all(v.trade_dates == [D.isoformat()] for v in verdicts.values())


def test_misaligned_pair_names_both_dates() -> None:
    batches = {"quotes": BUILDERS["quotes"](D), "valuation": BUILDERS["valuation"](PREV)}
    verdicts = check_alignment(batches, D, run_id="run-1", at=VALIDATED)
    assert verdicts["quotes"].outcome is Outcome.PASS
    v = verdicts["valuation"]
    assert v.outcome is Outcome.REJECT and v.failed_names() == ["trade_date_aligned"]
    assert PREV.isoformat() in v.message and D.isoformat() in v.message
    assert v.failed[0].details == {
        "batch_trade_dates": [PREV.isoformat()],
        "run_effective_trade_date": D.isoformat(),
    }
    assert v.ledger_status is LedgerStatus.NOT_READY  # behind: its vendor has not caught up


def test_reference_date_is_inferred_from_quotes_without_an_expected_date() -> None:
    batches = {
        "quotes": BUILDERS["quotes"](PREV),
        "adj_factors": BUILDERS["adj_factors"](D),
        "valuation": BUILDERS["valuation"](D),
    }
    verdicts = check_alignment(batches, None, run_id="run-1", at=VALIDATED)
    assert verdicts["quotes"].outcome is Outcome.PASS
    v = verdicts["adj_factors"]
    assert v.outcome is Outcome.REJECT and v.ledger_status is LedgerStatus.REJECTED  # ahead
    assert v.expected_trade_date == PREV.isoformat()


def test_non_trade_date_datasets_and_empty_batches_are_not_judged() -> None:
    batches = {
        "quotes": BUILDERS["quotes"](D),
        "news": BUILDERS["news"](),
        "dragon_tiger": BUILDERS["dragon_tiger"](D).iloc[:0],
    }
    verdicts = check_alignment(batches, D, at=VALIDATED)
    assert set(verdicts) == {"quotes", "dragon_tiger"}
    assert verdicts["dragon_tiger"].outcome is Outcome.PASS


def test_validate_run_merges_suite_and_alignment_verdicts() -> None:
    batches = {
        "quotes": BUILDERS["quotes"](D),
        "valuation": BUILDERS["valuation"](PREV),  # stale and misaligned
        "financials": BUILDERS["financials"](),
    }
    verdicts = validate_run(batches, ctx())
    assert verdicts["quotes"].outcome is Outcome.PASS
    assert verdicts["financials"].outcome is Outcome.PASS
    v = verdicts["valuation"]
    assert v.outcome is Outcome.REJECT and v.ledger_status is LedgerStatus.NOT_READY
    assert set(v.failed_names()) == {"trade_date_expected", "trade_date_aligned"}
    assert v.evaluated == 11 + 1  # the suite's expectations plus the alignment step
    assert v.checks[-1].name == "trade_date_aligned" and not v.checks[-1].success


def test_validate_run_in_a_backfill_skips_alignment() -> None:
    batches = {"quotes": BUILDERS["quotes"](PREV), "valuation": BUILDERS["valuation"](D)}
    verdicts = validate_run(batches, ctx(expected_trade_date=None, window_start=PREV, window_end=D))
    assert {v.outcome for v in verdicts.values()} == {Outcome.PASS}
    assert all("trade_date_aligned" not in [c.name for c in v.checks] for v in verdicts.values())
    assert date(2025, 6, 3) == PREV
