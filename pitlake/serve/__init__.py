"""Serving the lake: the HTTP API (`api/`, routes generated from the query models), the MCP
server (`mcp.py`) and the dashboard."""
