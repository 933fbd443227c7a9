"""The periodic-report disclosure schedule: when each company planned to publish its report for
a period, as known at a cutoff (one row per version of (symbol, report_period)).

Both vendors keep only their current schedule. Tushare `disclosure_date` dates it: `ann_date`
is the latest scheduling announcement, so a row is known at the end of that day, or of its
`actual_date` when the report is already out (basis `announcement`). East Money
(`stock_yysj_em`) gives the first planned date and up to three changed planned dates, but not
when a change was announced: its rows are known when first seen (`first_seen`), never
back-dated. A reschedule is a new version from its own announcement (or first sight) on, so a
cutoff before it sees the old plan if the lake held it, and never the new one. The schedules
each vendor overwrote before the lake first saw them are not recoverable: the nightly run
keeps the season's schedules so that the lake holds every change from then on.
"""

from typing import Annotated

import pyarrow as pa
from pitlake.schemas.base import Dataset, Kind, Scope, by_year
from pitlake.schemas.query import ScheduledQuery, query_model
from pydantic import Field

from pitlake.pit import rule_announced_else_first_seen

SCHEMA = Dataset(
    name="disclosure_schedule",
    fields=(
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("report_period", pa.date32(), nullable=False),
        pa.field("planned_date", pa.date32(), nullable=False),
        pa.field("actual_date", pa.date32()),
        pa.field("first_planned_date", pa.date32()),
        pa.field("ann_date", pa.date32()),
        pa.field("extra", pa.string()),
    ),
    column_docs={
        "report_period": "quarter end",
        "planned_date": "the current plan",
        "actual_date": "null until the report is out",
        "first_planned_date": "East Money 首次预约时间; Tushare: null",
        "ann_date": "Tushare: the latest scheduling announcement",
        "extra": "JSON: the vendor's change history as given",
    },
    key=("symbol", "report_period"),
    partitioning=by_year("report_period"),
    date_column="planned_date",
    kind=Kind.SCHEDULED,
    scope=Scope.RANGE,  # one whole-market call (paged) per period in season
    known_at=rule_announced_else_first_seen,
    default_chain=("tushare", "akshare"),
    quality=("quarter_end_period",),
    batch_versions=True,  # a published report's row also gives the plan as announced
    # A plan is its planned and actual dates; the history columns and the announcement date
    # are how the vendor tells it (a re-announced, unchanged plan is no new version).
    ignore_on_compare=("first_planned_date", "ann_date", "extra"),
    query=query_model(
        "DisclosureScheduleQuery",
        ScheduledQuery,
        "Which companies planned to publish a periodic report in a Beijing-day window, as "
        "known at the as-of.\n\nThe latest schedule of each (symbol, report_period) public by "
        "the as-of whose planned date falls in [start, end] (default: the as-of's day and the "
        "30 days after it); a reschedule public only later is not shown.",
        report_period=(
            Annotated[
                str | None,
                Field(description="Only this report period (a quarter end, YYYY-MM-DD)."),
            ],
            None,
        ),
    ),
)
