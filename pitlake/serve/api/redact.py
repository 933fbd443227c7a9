"""Keep vendor and API tokens out of every answer and log line.

pitlake never reads the Tushare token on the query path, but a ledger message or an exception
text written elsewhere could still carry one (an adapter echoing a URL, say). So every outgoing
answer and every log record of the query surfaces passes through `redact`: defence in depth
that costs one substring search per secret.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

API_SECRET_ENV_VARS: tuple[str, ...] = ("PITLAKE_API_TOKEN",)
MASK = "***"
MIN_SECRET_LEN = 6  # shorter values would mask ordinary words; no real token is that short


def secret_env_vars() -> tuple[str, ...]:
    """The API's own token and every vendor's secret variables (each vendor package names
    them; its plugin, client and replay dialect are not loaded for this: decision 54)."""
    from pitlake.vendors.plugins import secret_env_vars as vendor_secrets

    return (*API_SECRET_ENV_VARS, *vendor_secrets())


def secrets() -> list[str]:
    """The secret values set in the environment now (read on each call: cheap, and tests
    may plant them after start-up)."""
    out = []
    for name in secret_env_vars():
        value = os.environ.get(name, "").strip()
        if len(value) >= MIN_SECRET_LEN:
            out.append(value)
    return out


def _forms(secret: str) -> list[str]:
    """The secret as it appears raw and inside a JSON string."""
    escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
    return [secret] if escaped == secret else [secret, escaped]


def redact_text(text: str) -> str:
    for secret in secrets():
        for form in _forms(secret):
            if form in text:
                text = text.replace(form, MASK)
    return text


def redact_bytes(body: bytes) -> bytes:
    for secret in secrets():
        for form in _forms(secret):
            raw = form.encode()
            if raw in body:
                body = body.replace(raw, MASK.encode())
    return body


def redact_obj(value: Any) -> Any:
    """A JSON-shaped value with every secret masked (a copy only when something matched)."""
    found = secrets()
    if not found:
        return value
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    if not any(f in text for s in found for f in _forms(s)):
        return value
    return json.loads(redact_text(text))


class RedactSecrets(logging.Filter):
    """A logging filter that masks secrets in the formatted message and the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        found = secrets()
        if not found:
            return True
        if not _redact_args(record, found):
            try:
                message = record.getMessage()
            except Exception:  # a broken format string: log it as given
                message = str(record.msg)
            record.msg, record.args = redact_text(message), None
        if record.exc_info and record.exc_info[0] is not None:
            import traceback

            record.exc_text = redact_text("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        return True


def _redact_args(record: logging.LogRecord, found: list[str]) -> bool:
    """Mask secrets in a record's message and each of its text args, keeping the args a tuple.

    Formatters that read `record.args` themselves (uvicorn's access formatter unpacks the
    client, method, path, version and status) need them kept; flattening them into the
    message lost every access line. False when the record cannot be kept that way (args
    that are not a tuple, or a secret only the formatted text shows): the caller flattens.
    """
    if not isinstance(record.args, tuple) or not isinstance(record.msg, str):
        return False
    msg = redact_text(record.msg)
    args = tuple(redact_text(a) if isinstance(a, str) else a for a in record.args)
    try:
        formatted = msg % args if args else msg
    except Exception:  # a broken format string: the caller logs it as given
        return False
    if any(form in formatted for secret in found for form in _forms(secret)):
        return False
    record.msg, record.args = msg, args
    return True


def install_log_redaction(*logger_names: str) -> None:
    """Attach the filter to the named loggers' handlers and to the root's (a filter on a logger
    does not see records propagated from its children; a handler's filter does)."""
    flt = RedactSecrets()
    loggers = [logging.getLogger(n) for n in logger_names] + [logging.getLogger()]
    for logger in loggers:
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(flt)
        for handler in logger.handlers:
            if not any(isinstance(f, RedactSecrets) for f in handler.filters):
                handler.addFilter(flt)
