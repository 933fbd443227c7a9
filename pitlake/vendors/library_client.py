"""What the clients of the vendors reached through a Python library share (AkShare, Baostock).

The library is imported on first use (importing akshare costs a second or more, and a missing
library is VendorNotConfiguredError, never an ImportError), its functions are found by endpoint
name (a name it does not offer is VendorNotConfiguredError too), and with `record_dir` every
answer is recorded for replay (replay/recording.py). How a call is made and how its failures
read is each vendor's own (its client.py).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, Self

from pitlake.errors import VendorNotConfiguredError
from pitlake.vendors.replay.recording import Recorder


class LibraryClient:
    """A vendor's library, imported on first use; its functions by endpoint name."""

    vendor: ClassVar[str]
    library: ClassVar[str]  # the module imported
    no_such_endpoint: ClassVar[str]  # the error's text for a name the library does not offer

    def __init__(
        self,
        *,
        timeout: float = 60.0,
        module: ModuleType | Any | None = None,
        record_dir: str | Path | None = None,
    ) -> None:
        self.timeout = timeout
        self._library = module
        self._import_lock = threading.Lock()
        self.recorder = Recorder(record_dir, self.vendor) if record_dir else None

    @classmethod
    def live(
        cls,
        *,
        record_dir: str | Path | None = None,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Self:
        """The plugin's live client factory (the library reads no environment of ours)."""
        kw: dict[str, Any] = {"record_dir": record_dir}
        if timeout is not None:
            kw["timeout"] = timeout
        return cls(**kw)

    def before_import(self) -> None:
        """Set up what the library reads when it is imported (nothing by default)."""

    def offers(self, endpoint: str) -> bool:
        """Whether an endpoint name may be one of the library's functions (any, by default)."""
        return True

    def _module(self) -> Any:
        with self._import_lock:
            if self._library is None:
                self.before_import()
                try:
                    self._library = importlib.import_module(self.library)
                except ImportError as exc:
                    raise VendorNotConfiguredError(
                        f"{self.library} is not installed ({exc})", vendor=self.vendor
                    ) from None
            return self._library

    def _function(self, endpoint: str) -> Callable[..., Any]:
        fn = getattr(self._module(), endpoint, None) if self.offers(endpoint) else None
        if not callable(fn):
            raise VendorNotConfiguredError(
                self.no_such_endpoint, vendor=self.vendor, endpoint=endpoint
            )
        return fn

    def ensure_configured(self, endpoint: str = "") -> None:
        if endpoint:
            self._function(endpoint)
        else:
            self._module()
