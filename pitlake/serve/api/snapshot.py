"""Snapshot: several datasets for the same symbols at once, each section its own envelope with
its own `effective_trade_date`; `meta.aligned` says whether the trade-dated sections answer
about the same session. Misaligned sections are reported side by side, never merged."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from typing import Any

from pitlake.calendar import to_date
from pitlake.envelope import Result
from pitlake.errors import InvalidArgumentsError
from pitlake.read.lake import Lake
from pitlake.read.status import BENIGN_ANSWER, combine
from pitlake.schemas import SCHEMAS, Dataset, Kind
from pitlake.serve.api.faults import Fault, classify, fault_envelope
from pitlake.serve.api.params import dataset_list, repair_as_of, split_list
from pitlake.serve.api.service import Answer, QueryService
from pitlake.statuses import DateStatus, ResultStatus
from pitlake.symbols import canonical_many

log = logging.getLogger("pitlake.api")

# A snapshot's sections: every queryable dataset asked about stock symbols (not the calendar,
# not a closed set of other instruments such as indices), the trade-dated ones first — their answers are about one session, so they can be (mis)aligned.
SNAPSHOT_DATASETS: tuple[str, ...] = tuple(
    sorted(
        (
            d
            for d, s in SCHEMAS.items()
            if s.query and "symbols" in s.query.model_fields and not s.instruments
        ),
        key=lambda d: SCHEMAS[d].kind is not Kind.TRADE_DATED,
    )
)
ALIGNED_DATASETS: frozenset[str] = frozenset(
    d for d in SNAPSHOT_DATASETS if SCHEMAS[d].kind is Kind.TRADE_DATED
)
MAX_SNAPSHOT_SYMBOLS = 200


def snapshot(
    service: QueryService,
    symbols: str | Sequence[str] | None = None,
    *,
    datasets: str | Sequence[str] | None = None,
    date: str | None = None,
    as_of: str | None = None,
    pin: str | None = None,
) -> Answer:
    """Several datasets for the same symbols, one section each (see the module doc).

    A trade-dated section whose session is not available (NOT_READY, a failed fetch)
    carries that status and, when an older session is known, that session's rows flagged
    `date_status: STALE` with its own `effective_trade_date` and `meta.fallback` — so an
    agent sees yesterday's valuation *as* yesterday's, beside today's quotes."""
    as_of = repair_as_of(as_of) if isinstance(as_of, str) else as_of
    try:
        pin_at, pin_name = service.resolve_pin(pin)
    except InvalidArgumentsError as e:
        return Answer(Result.invalid(str(e)).to_dict())
    try:
        names = dataset_list(datasets) or list(SNAPSHOT_DATASETS)
        unknown = [n for n in names if n not in SNAPSHOT_DATASETS]
        if unknown:
            raise InvalidArgumentsError(
                f"snapshot datasets must be among {', '.join(SNAPSHOT_DATASETS)}; "
                f"got {', '.join(unknown)}"
            )
        raw = split_list(symbols)
        if not raw:
            raise InvalidArgumentsError("give at least one symbol, e.g. 600519.SH")
        syms = canonical_many(raw)
        if len(syms) > MAX_SNAPSHOT_SYMBOLS:
            raise InvalidArgumentsError(
                f"too many symbols for a snapshot ({len(syms)} > {MAX_SNAPSHOT_SYMBOLS})"
            )
        day = to_date(date) if date is not None else None
        service.require_lake()  # one not-a-lake answer, not one per section
        lake = service.lake(pin_at)
        ask = lake.ask(as_of)  # the Lake's own cutoff rules (pin, future, now)
        requested = day or ask.cutoff.date()
        target = lake.trading_calendar.session_on_or_before(min(requested, ask.cutoff.date()))
    except InvalidArgumentsError as e:
        env = Result.invalid(str(e)).to_dict()
        service.stamp_pin(env, pin_at, pin_name, as_of)
        return Answer(env)
    except Exception as e:  # the catalog failing to open, say
        fault = classify(e)
        log.exception("snapshot failed before reading (%s)", fault)
        return Answer(fault_envelope(fault, e, service.root), fault)

    sections: list[dict[str, Any]] = []
    faults: list[Fault] = []
    with _reading(lake):
        for name in names:
            env, fault = service.guard(
                f"snapshot.{name}", lambda n=name: _section(lake, SCHEMAS[n], syms, day, as_of)
            )
            if fault is None and name in ALIGNED_DATASETS:
                env = _with_fallback(service, lake, name, syms, as_of, env)
                env = _no_data_is_current(env, requested, target)
            if fault is not None:
                faults.append(fault)
            sections.append({"dataset": name, **env})

    invalid = [s for s in sections if s["status"] == ResultStatus.INVALID_ARGUMENTS]
    if invalid:
        env = {k: v for k, v in invalid[0].items() if k != "dataset"}
        service.stamp_pin(env, pin_at, pin_name, as_of)
        return Answer(env)
    env = _snapshot_envelope(sections, requested, target, ask.as_of, ask.pinned)
    service.stamp_pin(env, pin_at, pin_name, as_of)
    return Answer(env, faults[0] if faults else None)


@contextmanager
def _reading(lake: Lake) -> Iterator[None]:
    """Every section's ledger queries on one catalog connection, opened for this request and
    closed with it (`Catalog.reading`); a catalog that fails to open is each section's fault,
    as before."""
    try:
        scope = lake.catalog.reading()
    except Exception:
        log.debug("snapshot: no shared catalog connection", exc_info=True)
        yield
        return
    with scope:
        yield


def _section(lake: Lake, spec: Dataset, syms: list[str], day: date | None, as_of: Any) -> Result:
    """The snapshot's question of this dataset's kind, about `day`."""
    return lake.read(spec, as_of=as_of, **spec.query.snapshot(syms, day))  # type: ignore[union-attr]


def _with_fallback(
    service: QueryService, lake: Lake, name: str, syms: list[str], as_of: Any, env: dict[str, Any]
) -> dict[str, Any]:
    """A section without its session's rows shows the latest older session's, flagged."""
    older = env.get("effective_trade_date")
    if (
        env["status"] in BENIGN_ANSWER
        or env["data"]
        or env["date_status"] != DateStatus.STALE
        or not older
    ):
        return env
    fb, fault = service.guard(
        f"snapshot.{name}.fallback",
        lambda: _section(lake, SCHEMAS[name], syms, to_date(older), as_of),
    )
    if fault is not None or fb["status"] != ResultStatus.OK or not fb["data"]:
        return env
    env = dict(env)
    env["data"] = fb["data"]
    env["source"] = fb["source"]
    env["meta"] = {
        **env["meta"],
        "rows": len(fb["data"]),
        "known_at_max": fb["meta"].get("known_at_max"),
        "fallback": {"effective_trade_date": older, "status": fb["status"]},
    }
    env["message"] = (
        f"{env['message']} The rows shown are {name} for {older}, the latest session "
        "known at the as-of — flagged STALE, not the requested session's."
    ).strip()
    return env


def _no_data_is_current(env: dict[str, Any], requested: date, target: date) -> dict[str, Any]:
    """A NO_DATA section is a successful fetch of the target session with nothing for these
    symbols (not on the dragon-tiger list, say): its answer *is* about the target session,
    whatever older session last had rows."""
    if env["status"] != ResultStatus.NO_DATA:
        return env
    return {
        **env,
        "effective_trade_date": target.isoformat(),
        "date_status": str(
            DateStatus.CURRENT if requested == target else DateStatus.LATEST_TRADING_DAY
        ),
    }


def _answered_session(section: dict[str, Any], target: date) -> str | None:
    """The session a trade-dated section's answer is about: its rows' session, or the
    target when the fetch for it succeeded with nothing for these symbols (NO_DATA)."""
    if section["status"] == ResultStatus.NO_DATA:
        return target.isoformat()
    return section.get("effective_trade_date")


def _snapshot_envelope(
    sections: list[dict[str, Any]],
    requested: date,
    target: date,
    as_of: str,
    pinned: bool,
) -> dict[str, Any]:
    sessions = {
        s["dataset"]: _answered_session(s, target)
        for s in sections
        if s["dataset"] in ALIGNED_DATASETS
    }
    distinct = set(sessions.values())
    aligned = len(distinct) <= 1 and None not in distinct
    common = next(iter(distinct)) if aligned and distinct else None
    statuses = [ResultStatus(s["status"]) for s in sections]
    status = combine(statuses, any(s["data"] for s in sections))
    if not sessions:
        date_status = DateStatus.NOT_APPLICABLE
    elif aligned and common is not None and common < target.isoformat():
        date_status = DateStatus.STALE  # every section fell back to one older session
    elif aligned:
        date_status = DateStatus.CURRENT if requested == target else DateStatus.LATEST_TRADING_DAY
    elif any(s["date_status"] == DateStatus.STALE for s in sections):
        date_status = DateStatus.STALE
    else:
        date_status = DateStatus.UNKNOWN
    if aligned and common:
        message = f"Sections aligned on the session {common}."
    elif aligned:
        message = "No trade-dated sections requested."
    else:
        shown = ", ".join(f"{k} {v or 'none'}" for k, v in sessions.items())
        message = (
            f"Sections are NOT aligned ({shown}): each section carries its own "
            "effective_trade_date; they are not merged into one session."
        )
    failing = [
        f"{s['dataset']}: {s['status']}" for s in sections if s["status"] not in BENIGN_ANSWER
    ]
    if failing:
        message += " Not OK: " + "; ".join(failing) + "."
    known = [s["meta"].get("known_at_max") for s in sections if s["meta"].get("known_at_max")]
    sources = sorted({p for s in sections if s["source"] for p in s["source"].split(",")})
    return {
        "status": str(status),
        "requested_date": requested.isoformat(),
        "effective_trade_date": common,
        "date_status": str(date_status),
        "as_of": as_of,
        "source": ",".join(sources) or None,
        "retryable": any(bool(s["retryable"]) for s in sections),
        "message": message,
        "data": sections,
        "meta": {
            "rows": len(sections),
            "known_at_max": max(known) if known else None,
            "vendor_trace": [],
            "pinned": pinned,
            "aligned": aligned,
            "sessions": sessions,
            "target_session": target.isoformat(),
        },
    }
