"""Sample tables of the announcements dataset, in the vendors' native shapes (SYNTHETIC).

East Money's notice list (AkShare `stock_notice_report`) is rendered by generate.py
(`em_notices`); Tushare `anns_d` carries the same announcements, as the two feeds do: its
titles without East Money's "名称:" prefix, a PDF link instead of the notice page, and the
publication instant (`rec_time`, hidden unless `fields` names it). Planted traps
(sample/README.md, tests/read/test_announcements.py):
- LATE_NOTICE at 23:59 Beijing on 2025-06-12 and EARLY_NOTICE at 00:01 Beijing on 2025-06-13,
  both in both feeds (East Money's copies date-only): a cutoff at 2025-06-12T23:59:30+08:00
  sees the first and not the second, and 00:01 Beijing (16:01 UTC the day before) is still
  2025-06-13's;
- UNTIMED_NOTICE: a Tushare row without rec_time (known at the end of its day);
- NO_NOTICE_DAY: a session with no notices in either feed.
"""

from __future__ import annotations

from datetime import date
from typing import Protocol

LATE_NOTICE = ("600519", "贵州茅台", "2025-06-12 23:59:00", "关于控股股东增持公司股份计划的公告")
EARLY_NOTICE = (
    "000001",
    "平安银行",
    "2025-06-13 00:01:00",
    "关于召开2025年第一次临时股东大会的通知",
)
TRAP_CATEGORY = "重大事项"  # the `_symbol` tag: the category a live recording asked for
TRAP_COLUMN = "股东大会决议"
UNTIMED_NOTICE = ("600234", "2025-04-10")  # (code, day): anns_d gives no rec_time for it
NO_NOTICE_DAY = date(2025, 6, 6)  # also sample/README.md case 14


class Out(Protocol):
    def rows(self, vendor: str, endpoint: str, rows: list[dict]) -> None: ...


def ts_code(code: str) -> str:
    suffix = "SH" if code.startswith("6") else "BJ" if code[0] in "489" else "SZ"
    return f"{code}.{suffix}"


def ymd(day: str) -> str:
    return day.replace("-", "")


def cninfo_url(day: str, n: int) -> str:
    return f"http://static.cninfo.com.cn/finalpage/{day}/12{ymd(day)}{n:04d}.PDF"


def trap_notices() -> list[dict]:
    """East Money's date-only copies of the two midnight announcements."""
    rows = []
    for n, (code, name, stamp, title) in enumerate((EARLY_NOTICE, LATE_NOTICE), start=9001):
        day = stamp[:10]
        rows.append(
            {
                "代码": code,
                "名称": name,
                "公告标题": f"{name}:{title}",
                "公告类型": TRAP_COLUMN,
                "公告日期": day,
                "网址": f"https://data.eastmoney.com/notices/detail/{code}/AN{ymd(day)}{n:08d}.html",
                "_symbol": TRAP_CATEGORY,
            }
        )
    return rows


def rec_time(row: dict, n: int) -> str | None:
    """A publication instant on the notice's day: reports in the evening, others after the
    close (minutes vary); none for UNTIMED_NOTICE."""
    if (row["代码"], row["公告日期"]) == UNTIMED_NOTICE:
        return None
    hour = 19 if "报告" in row["公告类型"] else 16
    return f"{row['公告日期']} {hour}:{10 + n % 50:02d}:00"


def tushare_anns_d(notices: list[dict]) -> list[dict]:
    """anns_d rows for the same announcements (the traps at their planted instants)."""
    stamps = {(c, s[:10], t): s for c, _, s, t in (LATE_NOTICE, EARLY_NOTICE)}
    rows = []
    for n, row in enumerate(notices, start=1):
        name = row["名称"]
        title = row["公告标题"].removeprefix(f"{name}:")
        stamp = stamps.get((row["代码"], row["公告日期"], title)) or rec_time(row, n)
        rows.append(
            {
                "ann_date": ymd(row["公告日期"]),
                "ts_code": ts_code(row["代码"]),
                "name": name,
                "title": title,
                "url": cninfo_url(row["公告日期"], n),
                "rec_time": stamp,
            }
        )
    return rows


def write(out: Out, em_notices: list[dict]) -> None:
    """East Money's notice list (generate.py's rows plus the traps, newest day first) and
    Tushare's anns_d for the same announcements."""
    notices = sorted([*em_notices, *trap_notices()], key=lambda r: r["公告日期"], reverse=True)
    if any(r["公告日期"] == NO_NOTICE_DAY.isoformat() for r in notices):
        raise ValueError(f"NO_NOTICE_DAY {NO_NOTICE_DAY} must have no notices")
    out.rows("akshare", "stock_notice_report", notices)
    out.rows("tushare", "anns_d", tushare_anns_d(notices))
