"""As-of reads over the lake (docs/design.md §2 `read/`): the cutoff, argument checks, the
scans (all SQL), status and gap semantics, answer assembly, one reader per dataset kind, the
point-in-time SQL views, and `Lake` (lake.py), the facade `pitlake.Lake` is."""
