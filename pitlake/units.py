"""Unit conversions, each defined once. Canonical: 元, shares, percent (2.35 = 2.35 %)."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")  # a float, or a pandas Series / numpy array of floats

SHARES_PER_LOT = 100  # 1 手 = 100 股
YUAN_PER_QIAN_YUAN = 1_000  # 千元
YUAN_PER_WAN_YUAN = 10_000  # 万元
SHARES_PER_WAN_SHARES = 10_000  # 万股
YUAN_PER_YI_YUAN = 100_000_000  # 亿元
# qfq/hfq prices (raw price × factor ratio) are served rounded to this many decimals of a 元:
# a hundredth of the exchange's 0.01 元 tick, so a ratio's float noise (1463.8600000000001)
# never shows, and every surface (Lake.quotes, quotes_qfq/_hfq in SQL) rounds the same way.
ADJUSTED_PRICE_DECIMALS = 4


def lots_to_shares(lots: T) -> T:
    return lots * SHARES_PER_LOT


def shares_to_lots(shares: T) -> T:
    return shares / SHARES_PER_LOT


def qian_yuan_to_yuan(v: T) -> T:
    return v * YUAN_PER_QIAN_YUAN


def wan_yuan_to_yuan(v: T) -> T:
    return v * YUAN_PER_WAN_YUAN


def yi_yuan_to_yuan(v: T) -> T:
    return v * YUAN_PER_YI_YUAN


def wan_shares_to_shares(v: T) -> T:
    return v * SHARES_PER_WAN_SHARES


def yuan_to_qian_yuan(v: T) -> T:
    return v / YUAN_PER_QIAN_YUAN


def yuan_to_wan_yuan(v: T) -> T:
    return v / YUAN_PER_WAN_YUAN


def fraction_to_percent(v: T) -> T:
    return v * 100


def percent_to_fraction(v: T) -> T:
    return v / 100


# The canonical units a stored column is in, by name: each dataset spec maps its columns to
# these (`Dataset.units`), and the catalogue (`pitlake datasets`) shows them. A column not
# mapped is a code, a date, a text or a plain ratio (PE, a factor, a count).
CNY = "CNY"  # 元
CNY_PER_SHARE = "CNY/share"  # a price (元 per share)
SHARES = "shares"  # 股 (手 and 万股 are converted)
PERCENT = "percent"  # 2.35 means 2.35 %
INDEX_POINTS = "index points"
UNITS: tuple[str, ...] = (CNY, CNY_PER_SHARE, SHARES, PERCENT, INDEX_POINTS)
