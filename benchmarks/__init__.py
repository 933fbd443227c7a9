"""Benchmark scripts and the synthetic market generator (DESIGN.md §10: scripts, not tests)."""
