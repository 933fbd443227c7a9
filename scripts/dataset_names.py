"""Which source modules name a dataset as a string (the #15 measure of scattered facts).

    python scripts/dataset_names.py            # counts per dataset
    python scripts/dataset_names.py -v         # and the modules

Counts production modules only (pitlake/, schemas/, expectations/, tasks/, flows/), as
`grep -rlE "[\"']NAME[\"']" --include=*.py` does. The budget per dataset is its spec, one
fetcher per vendor that serves it, and one more.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = ("pitlake", "schemas", "expectations", "tasks", "flows")


def dataset_names() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from pitlake import schemas

    return list(schemas.DATASETS)


def modules_naming(name: str) -> list[str]:
    pattern = re.compile(rf"[\"']{re.escape(name)}[\"']")
    hits = []
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            if pattern.search(path.read_text(encoding="utf-8")):
                hits.append(str(path.relative_to(ROOT)))
    return hits


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    for name in dataset_names():
        hits = modules_naming(name)
        print(f"{name:14} {len(hits):3}")
        if verbose:
            for h in hits:
                print(f"    {h}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
