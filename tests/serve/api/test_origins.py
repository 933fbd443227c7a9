"""Host allow-list (DNS rebinding) and tokenless cross-site refusal (issue 27, item 3)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from pitlake.serve.api.origins import ENV_ALLOWED_HOSTS, host_name, serving_hosts

SQL = "/v1/sql?q=SELECT%201%20AS%20x"


def test_a_cross_site_request_without_a_token_is_403(client: TestClient) -> None:
    r = client.get(SQL, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    assert r.json()["status"] == "PERMISSION_DENIED"
    assert client.get(SQL, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200


def test_a_cross_site_request_with_the_token_passes(
    make_client: Callable[..., TestClient],
) -> None:
    c = make_client(token="s3cret")
    auth = {"Authorization": "Bearer s3cret", "Sec-Fetch-Site": "cross-site"}
    assert c.get(SQL, headers=auth).status_code == 200


def test_a_host_outside_the_allowed_set_is_a_400_envelope(
    make_client: Callable[..., TestClient],
) -> None:
    c = make_client(token="", allowed_hosts=serving_hosts("127.0.0.1"))
    r = c.get(SQL, headers={"Host": "evil.example:8000"})
    assert r.status_code == 400
    assert r.json()["status"] == "INVALID_ARGUMENTS" and "evil.example" in r.json()["message"]
    for host in ("localhost:8000", "127.0.0.1", "[::1]:8000"):
        assert c.get(SQL, headers={"Host": host}).status_code == 200, host


def test_serving_hosts_take_the_env_and_the_bound_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_ALLOWED_HOSTS, "lake.internal, other")
    hosts = serving_hosts("10.0.0.5", ["x.y"])
    assert hosts == ["localhost", "127.0.0.1", "::1", "10.0.0.5", "lake.internal", "other", "x.y"]
    assert host_name("[::1]:80") == "::1" and host_name("Example.COM:1") == "example.com"
