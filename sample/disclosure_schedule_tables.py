"""Sample tables of the disclosure_schedule dataset, in the vendors' native shapes (SYNTHETIC).

Tushare `disclosure_date` is rendered by generate.py (`tushare_disclosure_date`); East Money's
appointment list (AkShare `stock_yysj_em`) carries the same schedules the way East Money
shows them: 首次预约时间 the first plan, 一次变更日期 the plan a change moved to, 实际披露时间
the publication; no date says when a plan was announced. Its rows carry neither the period
nor the market segment, so they are tagged with the request (`_date`, `_symbol`), as a live
recording writes them. Planted (sample/README.md case 16, tests/read/test_disclosure_schedule.py):
RESCHEDULE, 002594.SZ's 2024 annual report, first planned for 2025-03-28 and moved on
2025-03-15 (Tushare ann_date and modify_date) to 2025-03-24, when it was published.
"""

from __future__ import annotations

from typing import Protocol

RESCHEDULE = ("002594.SZ", "20241231", "2025-03-28")  # (ts_code, period, the first plan)


class Out(Protocol):
    def rows(self, vendor: str, endpoint: str, rows: list[dict]) -> None: ...


def iso(ymd: str | None) -> str | None:
    return None if ymd is None else f"{ymd[:4]}-{ymd[4:6]}-{ymd[6:]}"


def em_appointments(schedule: list[dict], names: dict[str, str]) -> list[dict]:
    """One East Money row per Tushare schedule row, numbered per (period, segment)."""
    rows: list[dict] = []
    counts: dict[tuple[str, str], int] = {}
    for r in schedule:
        segment = "京市A股" if r["ts_code"].endswith(".BJ") else "沪深A股"
        n = counts[(r["end_date"], segment)] = counts.get((r["end_date"], segment), 0) + 1
        first, changed = iso(r["pre_date"]), None
        if (r["ts_code"], r["end_date"]) == RESCHEDULE[:2]:
            first, changed = RESCHEDULE[2], iso(r["pre_date"])
        rows.append(
            {
                "序号": n,
                "股票代码": r["ts_code"][:6],
                "股票简称": names[r["ts_code"]],
                "首次预约时间": first,
                "一次变更日期": changed,
                "二次变更日期": None,
                "三次变更日期": None,
                "实际披露时间": iso(r["actual_date"]),
                "_symbol": segment,
                "_date": r["end_date"],
            }
        )
    return rows


def write(out: Out, schedule: list[dict], names: dict[str, str]) -> None:
    out.rows("akshare", "stock_yysj_em", em_appointments(schedule, names))
