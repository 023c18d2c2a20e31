"""schemathesis against the server's own OpenAPI document: no generated request gets a 5xx."""

from __future__ import annotations

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from server_support import Client, ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("schema")
    with ServerProcess(f"sqlite:///{folder / 'server.db'}", log=folder / "server.log") as running:
        yield running


def test_no_request_the_schema_allows_gets_a_server_error(server):
    http = httpx.Client(base_url=server.url, timeout=60)
    alice, bob = Client(http, "alice").register(), Client(http, "bob").register()
    match = alice.challenge("bob", length=3)["id"]
    bob.accept(match)
    alice.challenge("bot:random", length=1)
    schema = schemathesis.openapi.from_url(f"{server.url}/api/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 12
    failures = []
    for operation in operations:
        @settings(max_examples=25, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def check(case) -> None:  # type: ignore[no-untyped-def]
            response = case.call(base_url=server.url, headers=alice.headers, timeout=60)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.formatted_path} {case.body!r}: {response.status_code} "
                                f"{response.text[:200]}")

        check()
    assert not failures, "\n".join(failures[:20])
    assert http.get("/api/health").status_code == 200
