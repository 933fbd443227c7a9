"""What every Tushare fetcher shares: the reply check, and calls made stage by stage.

A fetch's first calls come from `transform_query`; each stage's answers may ask for more
(`follow_up`: the statements of the companies that announced, the halves of a news window at
its row cap). A stage's calls run concurrently up to `max_parallel` (the client's token bucket
and in-flight bound still hold). A call the token may not make is judged once all calls are
in: it fails the fetch unless another endpoint of the dataset's rows answered, or it only
enriches rows (the router's trace lists it).
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from pitlake.calendar import sessions_between
from pitlake.errors import NoMarketDataError, VendorError, VendorPermissionError
from pitlake.vendors.base import Fetcher, FetchRequest, RawResponse, VendorQuery
from pitlake.vendors.parsing import garbled

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

VENDOR = "tushare"
SYMBOL_FORM = "tushare"  # pitlake.symbols vendor form: 600519.SH

Sink = Callable[[RawResponse], None]


def ymd(d: date) -> str:
    return d.strftime("%Y%m%d")


def every_day(start: date, end: date) -> list[date]:
    return [start + timedelta(days=i) for i in range((end - start).days + 1)]


def trade_days(req: FetchRequest) -> list[date]:
    """The session a nightly request names, else the sessions of its range (one call each)."""
    if req.trade_date is not None:
        return [req.trade_date]
    assert req.start is not None and req.end is not None
    return sessions_between(req.start, req.end)


def check_frame(frame: object, endpoint: str, required: tuple[str, ...] = ()) -> pd.DataFrame:
    """A reply is data only if it is a frame with the endpoint's columns. The Tushare SDK
    answers an HTTP error with an empty, column-less frame: that is a failure, not 'no rows'."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise VendorError(
            f"answered {type(frame).__name__}, not a table", vendor=VENDOR, endpoint=endpoint
        )
    if len(frame.columns) == 0:
        raise VendorError(
            "answered a frame with no columns (an HTTP error in the Tushare SDK)",
            vendor=VENDOR,
            endpoint=endpoint,
        )
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise garbled(f"schema drift: missing columns {missing}", vendor=VENDOR, endpoint=endpoint)
    return frame


def required_columns() -> dict[str, tuple[str, ...]]:
    """endpoint → the columns an answer must carry, over every Tushare fetcher."""
    from pitlake.vendors.tushare import PLUGIN

    out: dict[str, tuple[str, ...]] = {}
    for cls in PLUGIN.fetchers.values():
        out.update(getattr(cls, "required", {}))
    return out


@dataclass(frozen=True)
class _Denied:
    """One call the token may not make (VendorPermissionError), judged once a fetch's calls
    are all in."""

    query: VendorQuery
    error: VendorPermissionError


class TushareFetcher(Fetcher):
    """A Tushare fetcher: `rows` turns the answers into canonical rows."""

    vendor = VENDOR
    # The endpoints whose answers are the dataset's rows. When there are several, a token
    # denied one of them still stores what the others answered.
    row_endpoints: ClassVar[tuple[str, ...]] = ()
    # Endpoints that only enrich rows (top_inst seats): a denied one is skipped.
    enrichment_endpoints: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, client: Any, *, max_parallel: int | None = None, **options: Any) -> None:
        from pitlake.vendors.registry import max_in_flight

        super().__init__(client, **options)
        # calls of one stage in flight at once (the client's own bound still applies)
        self.max_parallel = max_parallel or max_in_flight(VENDOR)

    # ------------------------------------------------------------ step 2: calls

    def extract(self, query: VendorQuery) -> pd.DataFrame:
        required = self.required.get(query.endpoint, ())
        return check_frame(
            self.client.call(query.endpoint, **query.params), query.endpoint, required
        )

    def collect(self, req: FetchRequest, fetched_at: datetime) -> list[RawResponse]:
        return self.staged(req, fetched_at)

    def follow_up(self, req: FetchRequest, stage: list[RawResponse]) -> list[VendorQuery]:
        """Calls that depend on the answers just received (none by default)."""
        return []

    def staged(
        self, req: FetchRequest, fetched_at: datetime, sink: Sink | None = None
    ) -> list[RawResponse]:
        """Make the calls stage by stage: each stage's answers may ask for more calls.
        `sink` sees every answer as it comes in."""
        raws: list[RawResponse] = []
        denied: list[_Denied] = []
        answered: set[str] = set()  # endpoints that answered (rows or none)
        queries = self.transform_query(req)
        only_call = len(queries) == 1
        while queries:
            stage: list[RawResponse] = []
            answers = self._stage(queries, fetched_at, only_call, sink)
            for q, r in zip(queries, answers, strict=True):
                if isinstance(r, _Denied):
                    denied.append(r)
                    continue
                answered.add(q.endpoint)
                if r is not None:
                    stage.append(r)
            raws += stage
            queries = self.follow_up(req, stage)
            only_call = False
        if denied:
            self._judge_denials(req, denied, answered)
        return raws

    def _judge_denials(self, req: FetchRequest, denied: list[_Denied], answered: set[str]) -> None:
        """A denied endpoint fails the fetch unless another endpoint of the dataset's rows
        answered (then it is skipped, and logged) or it only enriches rows."""
        rows_from = frozenset(self.row_endpoints)
        for d in denied:
            endpoint = d.query.endpoint
            if endpoint in self.enrichment_endpoints:
                continue
            if endpoint not in rows_from or not (answered & rows_from) - {endpoint}:
                raise d.error
        for endpoint in sorted({d.query.endpoint for d in denied}):
            first = next(d.error for d in denied if d.query.endpoint == endpoint)
            log.warning(
                "tushare %s unavailable to this token, %s stored without it: %s",
                endpoint,
                req.dataset,
                first,
            )

    def _stage(
        self,
        queries: list[VendorQuery],
        fetched_at: datetime,
        only_call: bool,
        sink: Sink | None = None,
    ) -> list[RawResponse | _Denied | None]:
        """One stage's calls, concurrently: a reporting night asks for hundreds of statements
        and 150 ms each in a row would be the bottleneck, not the quota. Answers keep the
        queries' order, and the first failure (in that order) fails the fetch."""
        workers = min(self.max_parallel, len(queries))
        if workers <= 1:
            return [self._call(q, fetched_at, only_call, sink) for q in queries]
        with ThreadPoolExecutor(workers, thread_name_prefix="tushare") as pool:
            futures = [
                pool.submit(
                    contextvars.copy_context().run, self._call, q, fetched_at, only_call, sink
                )
                for q in queries
            ]
            return [f.result() for f in futures]

    def _call(
        self,
        query: VendorQuery,
        fetched_at: datetime,
        only_call: bool = False,
        sink: Sink | None = None,
    ) -> RawResponse | _Denied | None:
        try:
            frame = self.extract(query)
        except NoMarketDataError:
            if only_call:
                raise  # the client's own verdict on the whole request stands
            return None  # one empty answer among many; an empty whole is judged in transform
        except VendorPermissionError as exc:
            if only_call:
                raise
            # e.g. top_inst needs 5000 points, major_news its own right: `staged` judges.
            return _Denied(query, exc)
        raw = RawResponse(self.vendor, query, frame, fetched_at)
        if sink is not None:
            sink(raw)
        return raw

    # ------------------------------------------------------------ step 3: canonical rows

    def rows(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        raise NotImplementedError

    def transform_data(self, req: FetchRequest, raws: list[RawResponse]) -> pd.DataFrame:
        frame = self.rows(req, raws)
        if frame.empty:
            raise self._nothing(req, raws)
        return frame.reset_index(drop=True)

    def _nothing(self, req: FetchRequest, raws: list[RawResponse]) -> VendorError:
        """The vendor answered and no rows came out. Whether that means 'none exist' or 'not
        published yet' depends on the clock, which the flow knows and the fetcher does not."""
        endpoints = ",".join(sorted({r.query.endpoint for r in raws}))
        return NoMarketDataError(
            f"no {req.dataset} rows",
            vendor=VENDOR,
            endpoint=endpoints or ",".join(self.row_endpoints),
        )
