"""With a token set, uvicorn's access log still writes every line, and masks the token.

uvicorn's AccessFormatter unpacks `record.args` (client, method, path, version, status); a
filter that flattened the args into the message broke every access line (issue 27 item 13)."""

from __future__ import annotations

import io
import logging

import pytest
from uvicorn.logging import AccessFormatter

from pitlake.serve.api.redact import RedactSecrets

TOKEN = "s3cr3t-token-0123456789"


def _access_line(path: str) -> str:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False)
    )
    handler.addFilter(RedactSecrets())
    logger = logging.getLogger("uvicorn.access.redaction-test")
    logger.propagate = False
    logger.handlers = [handler]
    logger.setLevel(logging.INFO)
    try:
        logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", path, "1.1", 200)
    finally:
        logger.handlers = []
    return stream.getvalue()


def test_access_lines_survive_a_token_and_mask_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITLAKE_API_TOKEN", TOKEN)
    line = _access_line(f"/v1/quotes?symbol=600519&token={TOKEN}")
    assert (
        line.strip() == '127.0.0.1:5000 - "GET /v1/quotes?symbol=600519&token=*** HTTP/1.1" 200 OK'
    )
    assert TOKEN not in line


def test_access_lines_without_a_secret_are_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITLAKE_API_TOKEN", TOKEN)
    line = _access_line("/healthz")
    assert line.strip() == '127.0.0.1:5000 - "GET /healthz HTTP/1.1" 200 OK'
