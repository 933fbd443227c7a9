import pandas as pd

from pitlake import units


def test_scalar_conversions() -> None:
    assert units.lots_to_shares(12.5) == 1250
    assert units.shares_to_lots(1250) == 12.5
    assert units.qian_yuan_to_yuan(1.5) == 1500
    assert units.wan_yuan_to_yuan(2) == 20_000
    assert units.wan_shares_to_shares(3) == 30_000
    assert units.yi_yuan_to_yuan(1) == 100_000_000
    assert units.fraction_to_percent(0.0235) == 2.35
    assert units.percent_to_fraction(2.35) == 0.0235


def test_round_trips_on_series() -> None:
    s = pd.Series([0.0, 1.0, 123.456])
    pd.testing.assert_series_equal(units.shares_to_lots(units.lots_to_shares(s)), s)
    pd.testing.assert_series_equal(units.yuan_to_qian_yuan(units.qian_yuan_to_yuan(s)), s)
    pd.testing.assert_series_equal(units.yuan_to_wan_yuan(units.wan_yuan_to_yuan(s)), s)
