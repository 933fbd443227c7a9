"""Baostock fetchers, one module per dataset (each defines FETCHER)."""
