import json

import pytest

from pitlake import errors
from pitlake.envelope import Result
from pitlake.statuses import RESULT_FOR_LEDGER, RUN_DONE, DateStatus, LedgerStatus, ResultStatus

ENVELOPE_KEYS = {
    "status",
    "requested_date",
    "effective_trade_date",
    "date_status",
    "as_of",
    "source",
    "retryable",
    "message",
    "data",
    "meta",
}


def test_envelope_keys_and_json() -> None:
    r = Result(status=ResultStatus.OK, data=[{"a": 1}], source="tushare")
    d = r.to_dict()
    assert set(d) == ENVELOPE_KEYS
    assert d["meta"]["rows"] == 1
    assert set(d["meta"]) >= {"rows", "known_at_max", "vendor_trace", "pinned"}
    assert json.loads(json.dumps(d))["status"] == "OK"


def test_retryable_follows_status() -> None:
    assert Result(status="NOT_READY").retryable is True
    assert Result(status="RATE_LIMITED").retryable is True
    assert Result(status="NO_DATA").retryable is False
    assert Result.invalid("bad symbol").retryable is False
    assert Result.invalid("bad").status is ResultStatus.INVALID_ARGUMENTS


def test_status_string_coerced_and_validated() -> None:
    assert Result(status="OK", date_status="CURRENT").date_status is DateStatus.CURRENT
    with pytest.raises(ValueError):
        Result(status="FINE")


def test_every_ledger_status_maps_to_a_result_status() -> None:
    assert set(RESULT_FOR_LEDGER) == set(LedgerStatus)
    # A failure never reads as "no data".
    for failed in ("NOT_READY", "RATE_LIMITED", "UPSTREAM_ERROR", "PERMISSION_DENIED", "REJECTED"):
        assert RESULT_FOR_LEDGER[LedgerStatus(failed)] not in (
            ResultStatus.OK,
            ResultStatus.NO_DATA,
        )
    assert LedgerStatus.REJECTED not in RUN_DONE


@pytest.mark.parametrize(
    ("cls", "status", "retryable"),
    [
        (errors.VendorNotConfiguredError, ResultStatus.NOT_CONFIGURED, False),
        (errors.VendorPermissionError, ResultStatus.PERMISSION_DENIED, False),
        (errors.VendorRateLimitError, ResultStatus.RATE_LIMITED, True),
        (errors.NoMarketDataError, ResultStatus.NO_DATA, False),
        (errors.DataNotReadyError, ResultStatus.NOT_READY, True),
        (errors.VendorError, ResultStatus.UPSTREAM_ERROR, True),
    ],
)
def test_error_hierarchy(
    cls: type[errors.VendorError], status: ResultStatus, retryable: bool
) -> None:
    e = cls("boom", vendor="tushare", endpoint="daily")
    assert isinstance(e, errors.VendorError)
    assert e.status is status and e.retryable is retryable
    assert e.vendor == "tushare" and e.endpoint == "daily"
    assert str(e) == "[tushare.daily] boom"


def test_rate_limit_carries_retry_after_and_retryable_override() -> None:
    e = errors.VendorRateLimitError("slow down", retry_after=60, vendor="tushare")
    assert e.retry_after == 60
    assert errors.VendorError("schema drift", retryable=False).retryable is False


def test_invalid_arguments_is_not_a_vendor_error() -> None:
    e = errors.InvalidArgumentsError("bad")
    assert not isinstance(e, errors.VendorError)
    assert isinstance(e, ValueError)
    assert e.status is ResultStatus.INVALID_ARGUMENTS


def test_error_kinds_cover_replay_vocabulary() -> None:
    assert set(errors.ERROR_BY_KIND) == {
        "rate_limited",
        "not_configured",
        "permission_denied",
        "upstream_error",
        "no_data",
        "not_ready",
    }
