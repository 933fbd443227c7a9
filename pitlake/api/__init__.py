"""The dashboard's old home (dashboard.py, static/), until it moves to pitlake/serve/dashboard/;
the query API is `pitlake.serve.api`."""
