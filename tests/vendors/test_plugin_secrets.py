"""Each vendor package names its secret variables (`SECRET_ENV`) and loads its plugin on first
use, so redaction masks every vendor's token without loading a client, classifier or replay
dialect on each answer (decision 54)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

from pitlake.serve.api import redact
from pitlake.vendors.plugins import plugins, secret_env_vars


def test_each_plugin_masks_the_variables_its_package_names() -> None:
    """One home per vendor: its plugin's `secret_env` is its package's `SECRET_ENV`, and the
    names redaction reads without plugins cover every plugin's (a vendor declaring a secret
    on its plugin alone would fail here, not leak)."""
    for p in plugins():
        package = importlib.import_module(f"pitlake.vendors.{p.name}")
        assert p.secret_env == package.SECRET_ENV, p.name
    every = {name for p in plugins() for name in p.secret_env}
    assert set(secret_env_vars()) == every
    assert {"TUSHARE_TOKEN", "TS_TOKEN"} <= every
    assert set(redact.secret_env_vars()) == every | set(redact.API_SECRET_ENV_VARS)


# A fresh interpreter: mask a planted token in an answer, then list what was imported.
PROBE = """
import json, sys
from pitlake.serve.api.redact import redact_obj, redact_text
token = sys.argv[1]
answer = redact_obj({"message": f"GET /dataapi?token={token} failed", "data": [token]})
print(json.dumps({"answer": answer, "log": redact_text(f"token={token}"),
                  "modules": sorted(sys.modules)}))
"""


def test_a_vendor_token_is_masked_without_loading_any_plugin() -> None:
    token = "ts-planted-0123456789abcdef"
    env = {"TUSHARE_TOKEN": token, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, token], capture_output=True, text=True, env=env, check=True
    )
    got = json.loads(done.stdout)
    assert token not in json.dumps(got["answer"]) and token not in got["log"]
    assert got["answer"] == {"message": "GET /dataapi?token=*** failed", "data": ["***"]}
    loaded = {m for m in got["modules"] if m.startswith("pitlake.vendors.")}
    assert not {m for m in loaded if m.count(".") > 2 or m == "pitlake.vendors.base"}, loaded
