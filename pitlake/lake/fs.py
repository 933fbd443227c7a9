"""Where the lake's files live: a local directory, or a prefix in an S3-compatible bucket.

The store and the readers ask a `LakeFS` for the few things they need (is there a file, which
partition files exist, read one, lock one, let DuckDB see them). `LocalFS` answers with plain
`pathlib` calls, exactly what the store did before object storage existed, so local lakes keep
their behaviour and speed. `ObjectFS` answers through fsspec/s3fs:

- a partition write is ONE `PutObject` of the whole Parquet file: S3 makes a single PUT
  atomic per object (readers see the old object or the new one), so there is no temp file and
  no rename; multipart uploads are never used (they are not needed below the 5 GiB PUT limit);
- S3 has no file locks, so the read-merge-write of a partition is serialised by a file lock in a
  local directory (`$PITLAKE_LOCK_DIR`, default `~/.cache/pitlake/locks`) keyed by the object's
  URL: writers in any process on one machine exclude each other. Writers on several machines are
  coordinated through the catalog (`pitlake.lake.lease`), and each PUT of a partition is
  conditional on the object that was read (If-Match / If-None-Match);
- DuckDB reads `s3://` URLs through the same fsspec filesystem registered on its connection
  (`register`), so no DuckDB extension (httpfs) is needed.

Endpoint and credentials: `$PITLAKE_S3_ENDPOINT_URL` (else `$AWS_ENDPOINT_URL_S3`,
`$AWS_ENDPOINT_URL`) and the standard AWS variables (`AWS_ACCESS_KEY_ID`,
`AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` / `AWS_DEFAULT_REGION`, profiles),
read by botocore as usual.
"""

from __future__ import annotations

import hashlib
import os
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import pyarrow as pa

from pitlake.errors import LakeUnwritableError

if TYPE_CHECKING:
    import pyarrow.parquet as pq

S3_SCHEME = "s3://"
ENV_ENDPOINT = "PITLAKE_S3_ENDPOINT_URL"
ENV_LOCK_DIR = "PITLAKE_LOCK_DIR"
ENV_DOCS_DIR = "PITLAKE_DOCS_DIR"
ENV_CATALOG_URL = "PITLAKE_CATALOG_URL"  # the same variable as pitlake.lake.catalog.ENV_URL
# S3's limit for one PutObject; above it a write would need a multipart upload (not atomic).
MAX_SINGLE_PUT = 5 * 2**30


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def is_url(root: object) -> bool:
    """True for a lake root given as a URL (`s3://bucket/prefix`)."""
    return isinstance(root, ObjectPath) or (isinstance(root, str) and "://" in root)


@dataclass(frozen=True, order=True)
class ObjectPath:
    """An object's URL with the few `Path` operations the store uses (`/`, parent, name)."""

    url: str

    def __post_init__(self) -> None:
        if not self.url.startswith(S3_SCHEME):
            raise ValueError(f"unsupported lake URL {self.url!r}: expected s3://bucket/prefix")
        bucket = self.url[len(S3_SCHEME) :].split("/", 1)[0]
        if not bucket:
            raise ValueError(f"lake URL {self.url!r} names no bucket")
        object.__setattr__(self, "url", self.url.rstrip("/"))

    def __truediv__(self, part: str | os.PathLike[str]) -> ObjectPath:
        part = str(part).strip("/")
        return ObjectPath(f"{self.url}/{part}") if part else self

    def __str__(self) -> str:
        return self.url

    @property
    def key(self) -> str:
        """`bucket/key`: the path form fsspec filesystems take."""
        return self.url[len(S3_SCHEME) :]

    @property
    def name(self) -> str:
        return self.key.rsplit("/", 1)[-1] if "/" in self.key else ""

    @property
    def parent(self) -> ObjectPath:
        return ObjectPath(self.url.rsplit("/", 1)[0]) if "/" in self.key else self


LakePath = Union[Path, ObjectPath]  # noqa: UP007 (a runtime alias)
ANY = object()  # `ObjectFS.put(expect=ANY)`: overwrite whatever is there


class ObjectChangedError(LakeUnwritableError):
    """A conditional PUT found another writer's object: the read-merge-write must start over."""


def _precondition_failed(exc: BaseException) -> bool:
    """s3fs turns 412 PreconditionFailed (and S3's 409 ConditionalRequestConflict, a
    concurrent conditional write) into OSError; the botocore error is the cause."""
    cause = exc.__cause__
    code = getattr(cause, "response", {}).get("Error", {}).get("Code", "")
    return code in ("PreconditionFailed", "ConditionalRequestConflict", "412", "409")


class LocalFS:
    """A lake in a local directory: plain pathlib and pyarrow calls."""

    remote = False

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root: Path = Path(root)

    def is_file(self, path: Path) -> bool:
        return path.is_file()

    def exists(self, path: Path) -> bool:
        return path.exists()

    def partition_files(
        self, dataset_dir: Path, prefix: str, file_name: str
    ) -> list[tuple[str, Path]]:
        """(value, file) for every `<dataset_dir>/<prefix><value>/<file_name>`, sorted."""
        if not dataset_dir.is_dir():
            return []
        out = []
        for child in sorted(dataset_dir.iterdir()):
            path = child / file_name
            if child.name.startswith(prefix) and path.is_file():
                out.append((child.name[len(prefix) :], path))
        return out

    def parquet(self, path: Path) -> pq.ParquetFile:
        import pyarrow.parquet as pq  # with pyarrow.fs and ssl, ~25 ms: not every read

        return pq.ParquetFile(path)

    def read_bytes(self, path: Path) -> bytes:
        return path.read_bytes()

    def sha256(self, path: Path) -> str:
        return file_sha256(path)

    def lock(self, directory: Path) -> AbstractContextManager[None]:
        from pitlake.lake.locking import locked  # filelock: writers only (decision 54)

        return locked(directory)

    def register(self, con: Any) -> None:
        """Local files need nothing registered with DuckDB."""


class ObjectFS:
    """A lake under an `s3://bucket/prefix` URL, through an fsspec filesystem."""

    remote = True

    def __init__(self, root: str | ObjectPath, filesystem: Any | None = None) -> None:
        self.root = root if isinstance(root, ObjectPath) else ObjectPath(root)
        self.fs = filesystem if filesystem is not None else s3_filesystem()

    def is_file(self, path: ObjectPath) -> bool:
        return bool(self.fs.isfile(path.key))

    def exists(self, path: ObjectPath) -> bool:
        return bool(self.fs.exists(path.key))

    def partition_files(
        self, dataset_dir: ObjectPath, prefix: str, file_name: str
    ) -> list[tuple[str, ObjectPath]]:
        """One flat, paginated listing of the dataset's prefix (not a request per partition:
        `find` without maxdepth lists with no delimiter)."""
        base = dataset_dir.key + "/"
        try:
            keys = self.fs.find(base, withdirs=False)
        except FileNotFoundError:
            return []
        out = []
        for key in keys:
            rest = key[len(base) :] if key.startswith(base) else ""
            parts = rest.split("/")
            if len(parts) == 2 and parts[0].startswith(prefix) and parts[1] == file_name:
                out.append((parts[0][len(prefix) :], ObjectPath(S3_SCHEME + key)))
        return sorted(out, key=lambda vp: vp[0])

    def parquet(self, path: ObjectPath) -> pq.ParquetFile:
        """The whole object in one GET (partition files are read whole by the store)."""
        import pyarrow.parquet as pq

        return pq.ParquetFile(pa.BufferReader(self.read_bytes(path)))

    def read_bytes(self, path: ObjectPath) -> bytes:
        """One GET of the whole object: a consistent copy even while a writer replaces it
        (s3fs would otherwise HEAD first and may fetch ranges in parallel, which could mix
        two versions of an object replaced mid-read)."""
        return bytes(self.fs.cat_file(path.key, max_concurrency=1))

    def read_if_exists(self, path: ObjectPath) -> bytes | None:
        """The object's bytes in one GET, or None when there is no such object."""
        try:
            return self.read_bytes(path)
        except FileNotFoundError:
            return None

    def sha256(self, path: ObjectPath) -> str:
        return hashlib.sha256(self.read_bytes(path)).hexdigest()

    def read_versioned(self, path: ObjectPath) -> tuple[bytes, str] | None:
        """The object's bytes and ETag from one GET (None when there is no such object): the
        ETag a conditional `put` then requires, so a write is built on exactly what was read."""
        from fsspec.asyn import sync

        bucket, _, key = path.key.partition("/")

        async def get() -> tuple[bytes, str]:
            resp = await self.fs._call_s3("get_object", Bucket=bucket, Key=key)
            async with resp["Body"] as body:
                data = await body.read()
            return bytes(data), str(resp["ETag"])

        try:
            return sync(self.fs.loop, get)
        except FileNotFoundError:
            return None

    def put(self, path: ObjectPath, data: bytes, *, expect: str | object | None = ANY) -> None:
        """Publish `data` as the object at `path` with a single PutObject (atomic per object).
        `expect` makes it conditional: an ETag (If-Match: the object is still the one read),
        None (If-None-Match: there is still no object); ObjectChangedError otherwise."""
        if len(data) >= MAX_SINGLE_PUT:
            raise ValueError(
                f"{path}: {len(data)} bytes exceed one S3 PUT (5 GiB); partition more finely"
            )
        condition: dict[str, str] = {}
        if expect is None:
            condition = {"IfNoneMatch": "*"}
        elif isinstance(expect, str):
            condition = {"IfMatch": expect}
        try:
            # s3fs uses one put_object below min(5 GiB, 2 × chunksize): make that 5 GiB.
            self.fs.pipe_file(path.key, data, chunksize=MAX_SINGLE_PUT, **condition)
        except OSError as exc:
            if condition and _precondition_failed(exc):
                raise ObjectChangedError(
                    f"{path} changed since it was read (another writer): not overwritten",
                    path=str(path),
                ) from exc
            raise

    def lock(self, directory: ObjectPath) -> AbstractContextManager[None]:
        from pitlake.lake.locking import locked

        return locked(local_lock_dir(directory.url))

    def register(self, con: Any) -> None:
        """Let a DuckDB connection read `s3://` URLs through this filesystem."""
        con.register_filesystem(self.fs)


LakeFS = Union[LocalFS, ObjectFS]  # noqa: UP007 (a runtime alias)


def open_fs(root: str | os.PathLike[str] | ObjectPath) -> LakeFS:
    """The filesystem for a lake root: a URL → ObjectFS, anything else → LocalFS."""
    if is_url(root):
        return ObjectFS(root if isinstance(root, ObjectPath) else str(root))
    return LocalFS(root)  # type: ignore[arg-type]


def lake_root(root: str | os.PathLike[str] | ObjectPath) -> LakePath:
    """A lake root as the store keeps it: Path for a directory, ObjectPath for a URL."""
    if isinstance(root, ObjectPath):
        return root
    return ObjectPath(str(root)) if is_url(root) else Path(root)


def endpoint_url(environ: dict[str, str] | None = None) -> str | None:
    env = os.environ if environ is None else environ
    for name in (ENV_ENDPOINT, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"):
        value = env.get(name, "").strip()
        if value:
            return value
    return None


def s3_filesystem() -> Any:
    """An s3fs filesystem from the environment. Listings are never cached: another writer may
    have added a partition since the last look."""
    import s3fs

    client_kwargs: dict[str, Any] = {}
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        client_kwargs["region_name"] = region
    return s3fs.S3FileSystem(
        endpoint_url=endpoint_url(),
        use_listings_cache=False,
        client_kwargs=client_kwargs,
    )


def local_lock_dir(url: str) -> Path:
    """A local directory standing for one object prefix, for its cross-process lock."""
    base = os.environ.get(ENV_LOCK_DIR, "").strip()
    root = Path(base) if base else Path.home() / ".cache" / "pitlake" / "locks"
    return root / hashlib.sha256(url.encode()).hexdigest()[:32]


def require_catalog_url(url: str | None, root: object) -> str:
    """The catalog URL for a lake on object storage, where no SQLite file can live beside the
    data: the given URL, else $PITLAKE_CATALOG_URL; a clear error when neither is set."""
    url = url or os.environ.get(ENV_CATALOG_URL, "").strip() or None
    if url is None:
        raise ValueError(
            f"the lake {root} is on object storage: give a catalog URL (catalog_url= or "
            f"${ENV_CATALOG_URL}), e.g. postgresql://… or sqlite:////local/path/catalog.db"
        )
    return url


def local_docs_dir(url: str) -> Path:
    """Where the Data Docs of a lake on object storage are written: $PITLAKE_DOCS_DIR, else
    a local cache directory named after the lake's URL (the `dq/` pages are built locally)."""
    base = os.environ.get(ENV_DOCS_DIR, "").strip()
    if base:
        return Path(base)
    return (
        Path.home() / ".cache" / "pitlake" / "docs" / hashlib.sha256(url.encode()).hexdigest()[:32]
    )
