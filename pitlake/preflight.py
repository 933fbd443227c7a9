"""Before a write run starts: can the lake directory and its catalog be created and written?

Checked once, up front, so a path under a regular file, a read-only directory, a full disk or
a catalog URL that cannot be opened is one `LakeUnwritableError` naming the path — not
hundreds of lines of tracebacks from a flow's tasks ending in "unable to open database file".
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from pitlake.errors import LakeUnwritableError

LOGS_DIR = "logs"


def check_writable_lake(lake: str, catalog_url: str | None = None) -> None:
    """Raise LakeUnwritableError(path=…) unless `lake` (a directory, or an s3:// URL) and
    its catalog (`catalog_url`, else $PITLAKE_CATALOG_URL, else <lake>/catalog.db) can be
    written. Creates the lake directory and its logs/ directory, as the run would."""
    from pitlake.lake.fs import ENV_CATALOG_URL, is_url

    url = catalog_url or os.environ.get(ENV_CATALOG_URL, "").strip() or None
    if is_url(lake):
        if url is None:
            raise LakeUnwritableError(
                f"the lake {lake} is on object storage: give its catalog a URL with "
                f"${ENV_CATALOG_URL} (postgresql://… or sqlite:////local/path/catalog.db)",
                path=lake,
            )
    else:
        root = Path(lake).expanduser()
        _writable_dir(root, "lake directory")
        _writable_dir(root / LOGS_DIR, "lake's logs directory")
    _openable_catalog(url, None if is_url(lake) else Path(lake).expanduser())


def _writable_dir(path: Path, what: str) -> None:
    blocker = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise LakeUnwritableError(
            f"cannot use {path} as the {what}: {blocker} is a file, not a directory",
            path=str(path),
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".pitlake-probe-"):
            pass
    except OSError as e:
        raise LakeUnwritableError(
            f"cannot write the {what} {path}: {_reason(e)}", path=str(path)
        ) from e


def _openable_catalog(url: str | None, root: Path | None) -> None:
    from pitlake.lake.catalog import Catalog

    shown = _shown(url) if url else str((root or Path()) / "catalog.db")
    try:
        Catalog(url, lake_root=root).close()
    except Exception as e:  # the driver's own error type (sqlite3, psycopg, a bad URL)
        raise LakeUnwritableError(
            f"cannot open the catalog {shown}: {_reason(e)}", path=shown
        ) from e


def _shown(url: str) -> str:
    """A catalog URL as it may be printed: without its password."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@", 1)[-1] if "@" in url else url


def _reason(e: BaseException) -> str:
    if isinstance(e, OSError):
        if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return "permission denied"
        if e.errno == errno.ENOSPC:
            return "no space left on device"
        return e.strerror or str(e)
    orig = getattr(e, "orig", None)  # SQLAlchemy wraps the driver's error
    text = str(orig if orig is not None else e).strip().splitlines()
    return text[0] if text else type(e).__name__
