"""Vendor adapters (tushare, akshare), the replay source, and the router that chains them."""
