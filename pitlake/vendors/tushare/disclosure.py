"""Tushare `disclosure_date` (docs/vendor-reference.md §4.2), which two fetchers call: the
financials fetcher to find who published a report on a day (`actual_date=D`), the schedule
fetcher for a period's whole schedule (`end_date=P`, paged past its 3000-row cap)."""

from __future__ import annotations

DISCLOSURE = "disclosure_date"
DISCLOSURE_ROWS_PER_CALL = 3000
# modify_date is hidden unless `fields` names it
DISCLOSURE_FIELDS = "ts_code,ann_date,end_date,pre_date,actual_date,modify_date"
