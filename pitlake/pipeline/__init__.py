"""Ingest as a pipeline, plain Python (no Prefect): run resources, planning by each dataset's
kind and scope, fetch, gate batching, commit, the typed run summary and the nightly session.

`pitlake.tasks` wraps these functions one-to-one and `pitlake.flows` orders them. A *unit* is
what one ledger entry is about; every unit ends with a ledger status, so an empty answer is never
mistaken for a failed or not-yet-published one.
"""
