"""AkShare's fetchers, one module per dataset (each defines `FETCHER`)."""
