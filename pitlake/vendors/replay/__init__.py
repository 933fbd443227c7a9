"""Replay: vendor calls answered from recorded, vendor-native tables (docs/replay-format.md).

source.py answers calls, filters.py matches parameters, injection.py injects failures,
recording.py writes what live clients got; each vendor's dialect is in its own package."""
