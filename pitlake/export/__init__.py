"""Exports: the lake's point-in-time answers written in the formats other tools read
(`qlib`: a qlib data directory, docs/design.md §8 "Export to qlib")."""
