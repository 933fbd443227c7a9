"""The data-quality dashboard: its data model (from catalog methods), its Jinja templates and
its routes (`/dashboard`, `/dashboard/data.json`, `/dq/`)."""
