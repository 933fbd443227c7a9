"""The query-API test lake (tests/serve/api/lakebuild.py) plus what a qlib export must get
right, planted on purpose:
- CSI 300 snapshots of 06-04 (A alone) and 06-05 (A and B) beside 06-03's (A and B), each
  known at the end of its day: B is a member as of the closes of 06-04, not 06-05 (the 06-04
  snapshot is public by then), and again from 06-06 — two spells.
- A restates its 2025 Q1 income on 06-04 (date-only: known at the end of that day), so the
  restated net profit shows from the 06-05 session, never on 06-04.
- B publishes its 2025 Q1 income at 19:30 on 06-04 (an evening announcement: visible from
  06-05) and its 2024 annual at 11:30 on 06-03 (before the close: visible that session).
- A's 2025 Q1 balance sheet is announced on the 05-31 holiday: visible on 06-03.
C (600087.SH, delisted from 06-05, no bars) stays in the master: all.txt ends it on 06-04.
NO_FACTOR (600036.SH) has bars on 06-03 and 06-04 and no factor: no features, named.
"""

from __future__ import annotations

from pathlib import Path

from pitlake.lake.catalog import Catalog
from pitlake.lake.store import LakeStore
from tests.lake.conftest import INGEST, bar, bj, canonical, statement_row, write
from tests.serve.api.lakebuild import CSI300, A, B, C, build_lake

__all__ = ["CSI300", "NO_FACTOR", "A", "B", "C", "build_export_lake"]
NO_FACTOR = "600036.SH"


def build_export_lake(root: Path) -> Path:
    build_lake(root)
    store, cat = LakeStore(root), Catalog(lake_root=root)
    try:
        members = [
            {"index_code": CSI300, "trade_date": day, "symbol": s, "weight": 1.0}
            for day, symbols in (("2025-06-04", (A,)), ("2025-06-05", (A, B)))
            for s in symbols
        ]
        write(store, "index_members", members)
        for day, n in (("2025-06-04", 1), ("2025-06-05", 2)):
            cat.record_ledger("index_members", day, "OK", rows=n, vendor="tushare", at=INGEST)
        write(
            store,
            "financials",
            [
                statement_row(
                    A,
                    "2025-03-31",
                    "2025-04-25",
                    revision="2025-06-04",
                    revenue=31.0,
                    net_profit=3.5,
                ),
                statement_row(
                    A, "2025-03-31", "2025-05-31", statement="balance", total_assets=500.0
                ),
            ],
        )
        timed = [
            {
                **statement_row(B, "2025-03-31", "2025-06-04", net_profit=1.2, revenue=9.0),
                "known_at": bj("2025-06-04", "19:30"),
            },
            {
                **statement_row(B, "2024-12-31", "2025-06-03", net_profit=4.0, revenue=40.0),
                "known_at": bj("2025-06-03", "11:30"),
            },
        ]
        write(store, "financials", canonical("financials", timed))
        write(store, "quotes", [bar(NO_FACTOR, d, 40.0) for d in ("2025-06-03", "2025-06-04")])
        cat.record_ledger("financials", "2025-03-31", "OK", symbol=B, rows=2, at=INGEST)
    finally:
        cat.close()
    return root
