"""AkShare functions by name, each call bounded by a timeout, errors typed.

`AkshareClient` calls `akshare.<endpoint>(**params)` in a worker thread and gives up after a
timeout (AkShare's own requests mostly have none and can hang). akshare is imported on first
use, with tqdm progress bars turned off. Its failures are read by `akshare.replies`: the
exception a function raises on an *empty* reply (KeyError('代码') on a zero-notice day, …) is
NoMarketDataError for that call only; a parse failure on a real reply names the field, the
function and the akshare line; one on an HTTP 429 page is a rate limit. Retries and rate limits
wrap this client (`retry.ResilientClient`). With `record_dir`, every answer is recorded for
replay (replay/recording.py). Importing the library, finding a function and the live client
factory are every library client's (`vendors/library_client.py`).
"""

from __future__ import annotations

import inspect
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pitlake.errors import VendorError
from pitlake.vendors.akshare.replies import classify_failure
from pitlake.vendors.library_client import LibraryClient

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)


class AkshareClient(LibraryClient):
    """AkShare functions by name, each call bounded by a timeout, errors typed."""

    vendor = "akshare"
    library = "akshare"
    no_such_endpoint = "the installed akshare has no such function"

    def __init__(
        self,
        *,
        timeout: float = 60.0,
        module: ModuleType | Any | None = None,
        record_dir: str | Path | None = None,
    ) -> None:
        super().__init__(timeout=timeout, module=module, record_dir=record_dir)
        self._takes_timeout: dict[str, bool] = {}

    def __repr__(self) -> str:
        return f"AkshareClient(timeout={self.timeout})"

    def before_import(self) -> None:
        os.environ.setdefault("TQDM_DISABLE", "1")  # no progress bars on our output

    def _accepts_timeout(self, endpoint: str, fn: Callable[..., Any]) -> bool:
        if endpoint not in self._takes_timeout:
            try:
                self._takes_timeout[endpoint] = "timeout" in inspect.signature(fn).parameters
            except (TypeError, ValueError):
                self._takes_timeout[endpoint] = False
        return self._takes_timeout[endpoint]

    def call(self, endpoint: str, **params: Any) -> pd.DataFrame:
        import pandas as pd

        fn = self._function(endpoint)
        # akshare memoises some lists per process (functools.lru_cache: the exchanges' stock
        # lists, stock_info.py:121,184): a lake asks for today's answer, not the first one.
        getattr(fn, "cache_clear", lambda: None)()
        kwargs = dict(params)
        if self._accepts_timeout(endpoint, fn) and kwargs.get("timeout") is None:
            kwargs["timeout"] = self.timeout  # lets the socket give up too, freeing the thread
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                outcome["value"] = fn(**kwargs)
            except BaseException as exc:  # handed to the caller's thread
                outcome["error"] = exc
            finally:
                done.set()

        worker = threading.Thread(target=work, name=f"akshare-{endpoint}", daemon=True)
        worker.start()
        if not done.wait(self.timeout):
            log.warning(
                "akshare %s timed out after %ss; its thread is abandoned", endpoint, self.timeout
            )
            raise VendorError(
                f"timed out after {self.timeout:g}s",
                vendor=self.vendor,
                endpoint=endpoint,
                retryable=True,
            )
        if "error" in outcome:
            exc = outcome["error"]
            # An empty reply akshare's parser trips over is "no rows" for this call only.
            err = classify_failure(endpoint, exc)
            if err is exc:
                raise err
            raise err from exc
        frame = outcome.get("value")
        if self.recorder is not None and isinstance(frame, pd.DataFrame):
            self.recorder.append(endpoint, params, frame)
        return frame  # type: ignore[return-value]  # non-frames are typed by check_reply


live_client = AkshareClient.live
