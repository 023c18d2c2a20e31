"""Ending a log-in ends it (docs/server.md): a token in use by a thief, hammering an authenticated
endpoint from several connections, is refused by every request sent after the 204 of a log-out,
of ``DELETE /api/sessions/{id}`` or of a password change — on a real server, on both databases.

Before the fix, SQLite (where a server remembers log-ins it has read) kept 3 to 7 of 15 such
tokens working, one for over 6 minutes: the memory was cleared before the delete committed, and
a read in between put the log-in back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from server_support import ServerProcess, database, wait_for

TRIALS = 8  #: tokens ended per way of ending one, each while in use


@pytest.fixture(params=["sqlite", "postgresql"], scope="module")
def server(request, tmp_path_factory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp(request.param)
    with database(request.param, folder) as url, \
            ServerProcess(url, log=folder / "server.log", env={"GAMMON_LIMIT_REGISTRATIONS": "1000"}) as running:
        yield running


def _hammer(url: str, token: str, stop: threading.Event, answers: list[tuple[float, int]]) -> None:
    """Ask for the token's log-ins over and over, noting when each request was sent and its status."""
    with httpx.Client(base_url=url, timeout=120) as http:
        while not stop.is_set():
            sent = time.monotonic()
            answers.append((sent, http.get("/api/sessions", headers={"Authorization": f"Bearer {token}"}).status_code))


@pytest.mark.parametrize("ending", ["revoke", "log_out", "password"])
def test_a_token_in_use_is_refused_by_every_request_sent_after_its_end(server, ending) -> None:
    http = httpx.Client(base_url=server.url, timeout=120)
    kept = []
    for trial in range(TRIALS):
        name, password = f"{ending.replace('_', '')}{trial}", "correct horse"
        assert http.post("/api/users", json={"name": name, "password": password}).status_code == 201
        stolen, owner = (http.post("/api/sessions", json={"name": name, "password": password}).json()["token"]
                         for _ in range(2))
        http.cookies.clear()
        stop, answers = threading.Event(), []
        thieves = [threading.Thread(target=_hammer, args=(server.url, stolen, stop, answers)) for _ in range(4)]
        for thief in thieves:
            thief.start()
        try:
            # the token in use by every thief, and remembered where the server remembers log-ins
            wait_for(lambda answers=answers: sum(status == 200 for _, status in answers) >= 8, "the thieves' answers")
            mine = {"Authorization": f"Bearer {owner}"}
            if ending == "revoke":
                other = next(item["id"] for item in http.get("/api/sessions", headers=mine).json() if not item["current"])
                answer = http.delete(f"/api/sessions/{other}", headers=mine)
            elif ending == "log_out":
                answer = http.delete("/api/sessions", headers={"Authorization": f"Bearer {stolen}"})
            else:
                answer = http.put("/api/users/me/password", json={"old": password, "new": "another password"},
                                  headers=mine)
            ended = time.monotonic()
            assert answer.status_code == 204, answer.text
            time.sleep(0.5)
        finally:
            stop.set()
            for thief in thieves:
                thief.join()
        late = [status for sent, status in answers if sent > ended]
        assert late, "the thieves sent nothing after the end"
        if any(status < 400 for status in late):  # a request that succeeded
            kept.append((trial, sorted(set(late))))
        if http.get("/api/sessions", headers={"Authorization": f"Bearer {stolen}"}).status_code != 401:
            kept.append((trial, "still valid at the end"))
    assert not kept, f"{ending}: tokens answered after their end: {kept}"


def test_an_event_stream_opened_with_a_token_closes_once_its_log_in_ends(server) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from server_support import Client

    http = httpx.Client(base_url=server.url, timeout=120)
    alice, bob = Client(http, "streamer").register(), Client(http, "streamed").register()
    match = alice.challenge("streamed", length=1)["id"]
    password = "correct horse"
    stolen = http.post("/api/sessions", json={"name": "streamed", "password": password}).json()["token"]
    http.cookies.clear()
    with connect(f"ws://127.0.0.1:{server.port}/api/matches/{match}/events", open_timeout=60,
                 additional_headers={"Authorization": f"Bearer {stolen}"}) as feed:
        assert '"kind": "challenge"' in feed.recv(timeout=60)
        assert http.put("/api/users/me/password", json={"old": password, "new": "another password"},
                        headers=bob.headers).status_code == 204
        bob.password = "another password"
        bob.log_in()
        bob.accept(match)  # news for the stream: it is told no more to the ended log-in
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                feed.recv(timeout=60)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
