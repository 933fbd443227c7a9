"""Benchmark scripts and the synthetic market generator (docs/design.md §10: scripts, not tests)."""
