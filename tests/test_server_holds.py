"""The server on the open internet (issue: "A server that holds"): bursts, faults and abuse.

Real processes where the door is the network (bursts, slow clients, parallel guesses), the
app in-process where a fault is injected into its own database (a commit that fails, a disk
that is full); every check on SQLite and PostgreSQL unless the attack is about one of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import random
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError

from gammon.server.app import create_app
from gammon.server.settings import Limits, Settings
from server_support import Client, ServerProcess, choose, database


def _app(url: str, **limits: int) -> TestClient:
    return TestClient(create_app(Settings(db_url=url, bot_workers=1, hint_player="pubeval", limits=Limits(**limits))))


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


# -- bursts -----------------------------------------------------------------------------------------
def _burst(url: str, requests: list[tuple[str, str, dict]], health_every: float = 0.2) -> tuple[list[int], list[float]]:
    """Fire every request at once (one connection each); meanwhile ask /api/health over and over.

    Returns the status of each request and how long each health check took."""
    statuses: list[int] = []
    health: list[float] = []

    async def run() -> None:
        limits = httpx.Limits(max_connections=len(requests) + 10, max_keepalive_connections=0)
        async with httpx.AsyncClient(base_url=url, timeout=300, limits=limits) as client:
            done = asyncio.Event()

            async def one(method: str, path: str, options: dict) -> int:
                return (await client.request(method, path, **options)).status_code

            async def watch() -> None:
                async with httpx.AsyncClient(base_url=url, timeout=300) as watcher:
                    while not done.is_set():
                        started = time.monotonic()
                        answer = await watcher.get("/api/health")
                        assert answer.status_code == 200, answer.text
                        health.append(time.monotonic() - started)
                        await asyncio.sleep(health_every)

            watching = asyncio.ensure_future(watch())
            statuses.extend(await asyncio.gather(*(one(*request) for request in requests)))
            done.set()
            await watching

    asyncio.run(run())
    return statuses, health


def test_a_burst_of_300_writers_gets_an_answer_each_and_the_server_serves_on(db_url, tmp_path) -> None:
    with ServerProcess(db_url, "--pbm-port", "0", log=tmp_path / "server.log") as server:
        http = httpx.Client(base_url=server.url, timeout=120)
        alice, bob = Client(http, "alice").register(), Client(http, "bob").register()
        device = http.post("/api/sessions", json={"name": "alice", "password": "correct horse"}).json()["device"]
        match = alice.challenge("bob", length=3)["id"]
        state = bob.accept(match)
        mover = alice if state["players"][state["to_act"]] == "alice" else bob
        requests: list[tuple[str, str, dict]] = []
        for n in range(120):  # log-ins for names nobody has: no account needed to ask for a hash
            requests.append(("POST", "/api/sessions", {"json": {"name": f"ghost{n}", "password": "nothing at all"}}))
        for n in range(60):
            requests.append(("POST", "/api/users", {"json": {"name": f"crowd{n}", "password": "crowded out"}}))
        for _ in range(60):  # the same action, sixty times at once: one applies
            requests.append(("POST", f"/api/matches/{match}/actions",
                             {"json": {"action": "play", "play": state["legal"][0], "version": state["version"]},
                              "headers": mover.headers}))
        for n in range(60):
            requests.append(("POST", "/pbm", {"content": f"board {match}\nregister pbm{n} mailed-in"}))
        random.Random(3).shuffle(requests)
        statuses, health = _burst(server.url, requests)
        assert len(statuses) == 300 and all(status < 500 or status == 503 for status in statuses), statuses
        assert health, "health was asked during the burst"
        plays = [status for (method, path, _), status in zip(requests, statuses) if path.endswith("/actions")]
        assert plays.count(200) == 1 and set(plays) <= {200, 409, 429, 503}, plays
        # and it serves normally after: a log-in, an action, a read
        assert http.get("/api/health").status_code == 200
        after = alice.match(match)
        assert after["version"] == state["version"] + 1
        mover = alice if after["players"][after["to_act"]] == "alice" else bob
        mover.act(match, version=after["version"], **choose(after, random.Random(1)))
        # the burst spent this address's log-ins; alice's own browser is counted apart
        again = http.post("/api/sessions", json={"name": "alice", "password": "correct horse", "device": device})
        assert again.status_code == 200, again.text


# -- faults: a commit that fails, a disk that is full ---------------------------------------------------
class FailingCommits:
    """Makes the writer's commits fail while on (an injected fault: the database refuses to save)."""

    def __init__(self, engine) -> None:
        self.on = False
        event.listen(engine, "commit", self._commit)

    def _commit(self, connection) -> None:
        if self.on and connection.get_execution_options().get("gammon_write"):
            raise OperationalError("COMMIT", {}, Exception("injected: the disk refused the commit"))

    @contextlib.contextmanager
    def failing(self) -> Iterator[None]:
        self.on = True
        try:
            yield
        finally:
            self.on = False


def _nothing_untrue(http: TestClient, fail, kind: str) -> None:
    """Every state-changing request, made while saving fails: each is refused, none took effect."""
    alice, bob = Client(http, "alice").register(), Client(http, "bob").register()
    invitation = alice.challenge("bob", length=3)["id"]
    match = alice.challenge("bob", length=3)["id"]
    state = bob.accept(match)
    mover = alice if state["players"][state["to_act"]] == "alice" else bob
    before = {"me": http.get("/api/users/me", headers=alice.headers).json(), "match": alice.match(match),
              "invitation": alice.match(invitation), "sessions": len(http.get("/api/sessions", headers=alice.headers).json())}
    with fail():
        refused = {
            "log out": http.delete("/api/sessions", headers=alice.headers),
            "revoke all": http.delete("/api/sessions?all=true", headers=alice.headers),
            "password": http.put("/api/users/me/password", json={"old": "correct horse", "new": "changed horse"},
                                 headers=alice.headers),
            "mail": http.put("/api/users/me/mail", json={"mail_on_turn": False}, headers=alice.headers),
            "log in": http.post("/api/sessions", json={"name": "alice", "password": "correct horse"}),
            "register": http.post("/api/users", json={"name": "carol", "password": "correct horse"}),
            "challenge": http.post("/api/matches", json={"opponent": "bob", "length": 1}, headers=alice.headers),
            "accept": http.post(f"/api/matches/{invitation}/accept", headers=bob.headers),
            "action": http.post(f"/api/matches/{match}/actions", headers=mover.headers,
                                json={"action": "play", "play": state["legal"][0], "version": state["version"]}),
            "commitment": http.post("/api/commitments", headers=alice.headers),
            "pbm": http.post("/pbm", content="register dave correct-horse"),
        }
    for what, answer in refused.items():
        expected = 422 if what == "pbm" else 503  # play by mail answers each command in words (its door's 422)
        assert answer.status_code == expected, (kind, what, answer.status_code, answer.text)
        assert "not" in answer.text.lower(), (what, answer.text)
    # nothing it was told happened is true: the token works, the password is the old one, nothing was played
    assert http.get("/api/users/me", headers=alice.headers).json() == before["me"]
    assert len(http.get("/api/sessions", headers=alice.headers).json()) == before["sessions"]
    assert alice.match(match) == before["match"] and alice.match(invitation) == before["invitation"]
    assert http.post("/api/sessions", json={"name": "alice", "password": "changed horse"}).status_code == 401
    assert http.post("/api/users", json={"name": "carol", "password": "correct horse"}).status_code == 201  # not taken
    assert http.post("/api/sessions", json={"name": "dave", "password": "correct-horse"}).status_code == 401
    # and once saving works again, so does everything
    answer = mover.post(match, action="play", play=state["legal"][0], version=state["version"])
    assert answer.status_code == 200, answer.text
    assert http.delete("/api/sessions", headers=alice.headers).status_code == 204
    assert http.get("/api/users/me", headers=alice.headers).status_code == 401


def test_with_commits_failing_every_change_is_refused_and_none_is_half_done(db_url) -> None:
    with _app(db_url) as http:
        faults = FailingCommits(http.app.state.runtime.database)
        _nothing_untrue(http, faults.failing, "injected")


@contextlib.contextmanager
def tiny_filesystem(folder: Path) -> Iterator[Path]:
    """A 4 MiB file system of its own (tmpfs), so the database can be given a full disk for real."""
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        detail = mounted.stderr.decode().strip()
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot mount a tiny file system ({detail}): the full-disk test needs root")
        pytest.skip(f"cannot mount a tiny file system: {detail}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_on_a_full_disk_every_change_is_refused_and_none_is_half_done(tmp_path) -> None:
    with tiny_filesystem(tmp_path / "tiny") as folder:
        url = f"sqlite:///{folder / 'server.db'}"
        with _app(url) as http:
            filler = folder / "filler"

            @contextlib.contextmanager
            def full() -> Iterator[None]:
                # the write-ahead log keeps its size after a checkpoint, and a commit may reuse that
                # room: empty it first, so that any write now needs a block the disk does not have
                with http.app.state.runtime.database.connect() as connection:
                    connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
                with open(filler, "wb", buffering=0) as out:  # noqa: SIM117 - then take every block left
                    with contextlib.suppress(OSError):
                        while True:
                            out.write(b"\0" * 4096)
                            out.flush()
                try:
                    yield
                finally:
                    filler.unlink()

            _nothing_untrue(http, full, "full disk")


# -- abuse --------------------------------------------------------------------------------------------
def test_limits_per_address_on_log_ins_registrations_and_mail_commands(db_url) -> None:
    with _app(db_url, login_per_address=12, registrations_per_address=3, commands_per_address=30,
              commands_per_request=5) as http:
        codes = [http.post("/api/users", json={"name": f"user{n}", "password": "long enough"}).status_code
                 for n in range(5)]
        assert codes == [201, 201, 201, 429, 429]
        codes = [http.post("/api/sessions", json={"name": f"nobody{n}", "password": "long enough"}).status_code
                 for n in range(14)]  # a different name each time: the address is what is counted
        assert codes[:12] == [401] * 12 and codes[12:] == [429, 429]
        flood = http.post("/pbm", content="\n".join(f"register x{n} long-enough" for n in range(2000)))
        assert flood.status_code == 429 and flood.text.count("\n.\n") == 6  # five answered, then one refusal
        assert "at most 5 commands" in flood.text
        answers = [http.post("/pbm", content="help").status_code for _ in range(40)]
        assert 429 in answers and answers[0] == 200


def test_twenty_parallel_guesses_are_counted_one_by_one(tmp_path) -> None:
    """On PostgreSQL the count is one atomic statement: parallel guesses cannot all slip under it."""
    with database("postgresql", tmp_path) as url, ServerProcess(url, log=tmp_path / "server.log") as server:
        http = httpx.Client(base_url=server.url, timeout=120)
        Client(http, "zoe").register()
        statuses, _ = _burst(server.url, [("POST", "/api/sessions", {"json": {"name": "zoe", "password": f"guess {n}"}})
                                          for n in range(25)])
        assert statuses.count(401) <= 10 and statuses.count(429) >= 15, statuses


def test_names_are_whole_and_unique_without_case_in_the_database_itself(tmp_path) -> None:
    with database("postgresql", tmp_path) as url, ServerProcess(url, log=tmp_path / "server.log") as server:
        names = ["zed", "Zed", "ZED", "zeD", "zEd", "ZeD", "zED", "Zed"]
        statuses, _ = _burst(server.url, [("POST", "/api/users", {"json": {"name": name, "password": "long enough"}})
                                          for name in names])
        assert sorted(statuses) == [201] + [409] * 7, statuses
        answer = httpx.post(f"{server.url}/api/users", json={"name": "alice\n", "password": "long enough"})
        assert answer.status_code == 422
        with subprocess.Popen(["psql", url.replace("postgresql+psycopg://", "postgresql://"), "-tAc",
                               "SELECT count(*) FROM users WHERE lower(name) = 'zed'"], stdout=subprocess.PIPE) as psql:
            assert psql.communicate()[0].strip() == b"1"


def test_log_ins_expire_and_old_ones_are_swept_away(db_url) -> None:
    with _app(db_url) as http:
        alice = Client(http, "alice").register()
        runtime = http.app.state.runtime
        with runtime.database.begin() as connection:  # a log-in made long ago, and a limit window long over
            connection.execute(text("UPDATE sessions SET expires = :then, created = :then"),
                               {"then": dt.datetime(2019, 1, 1)})
            connection.execute(text("INSERT INTO limit_counters (key, window_start, count) VALUES ('old', :then, 3)"),
                               {"then": dt.datetime(2019, 1, 1)})
        answer = http.get("/api/users/me", headers=alice.headers)
        assert answer.status_code == 401 and "expired" in answer.json()["detail"]
        http.portal.call(runtime.accounts.sweep)  # what the server does every ten minutes
        with runtime.database.connect() as connection:
            assert connection.execute(text("SELECT count(*) FROM sessions")).scalar() == 0
            assert connection.execute(text("SELECT count(*) FROM limit_counters WHERE key = 'old'")).scalar() == 0


def test_security_headers_cookies_and_the_same_origin_rule(db_url) -> None:
    with _app(db_url) as http:
        page = http.get("/")
        policy = page.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
        assert page.headers["x-content-type-options"] == "nosniff" and page.headers["referrer-policy"] == "no-referrer"
        assert page.headers["x-frame-options"] == "DENY"
        assert http.get("/api/docs").status_code == 404  # no page that loads scripts from elsewhere
        alice = Client(http, "alice").register()
        bob = Client(http, "bob").register()
        match = alice.challenge("bob", length=1)["id"]
        http.cookies.clear()
        http.post("/api/sessions", json={"name": "bob", "password": "correct horse"})  # bob's browser: his cookie
        foreign = http.post(f"/api/matches/{match}/decline", headers={"Origin": "http://evil.example"})
        assert foreign.status_code == 403 and "another site" in foreign.json()["detail"]
        assert alice.match(match)["status"] == "invited"
        sneaky = http.post(f"/api/matches/{match}/accept", headers={"Sec-Fetch-Site": "cross-site"})
        assert sneaky.status_code == 403
        own = http.post(f"/api/matches/{match}/accept", headers={"Origin": "http://testserver"})
        assert own.status_code == 200, own.text
        # a bearer token is never sent by a browser by itself: no origin rule for it
        http.cookies.clear()
        answer = http.put("/api/users/me/mail", json={"mail_on_turn": False},
                          headers={**alice.headers, "Origin": "http://elsewhere.example"})
        assert answer.status_code == 200 and answer.json()["mail_on_turn"] is False
        del bob


def test_cookies_are_secure_behind_https(tmp_path) -> None:
    with ServerProcess(f"sqlite:///{tmp_path / 's.db'}", "--public-url", "https://play.example",
                       log=tmp_path / "server.log", env={"GAMMON_TRUSTED_PROXIES": "127.0.0.1"}) as server:
        http = httpx.Client(base_url=server.url, timeout=60)
        http.post("/api/users", json={"name": "alice", "password": "long enough"})
        answer = http.post("/api/sessions", json={"name": "alice", "password": "long enough"},
                           headers={"X-Forwarded-Proto": "https"})
        assert answer.status_code == 200
        cookies = answer.headers.get_list("set-cookie")
        assert cookies and all("secure" in cookie.lower() and "httponly" in cookie.lower() for cookie in cookies)
        assert "strict-transport-security" in answer.headers


def _trickle(port: int, count: int, source: str = "127.0.0.1") -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")  # and never the rest
        sockets.append(sock)
    return sockets


def _closed(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass
        return True
    except TimeoutError:
        return False
    except OSError:
        return True


def test_slow_clients_are_cut_off_and_no_address_holds_every_connection(tmp_path) -> None:
    env = {"GAMMON_LIMIT_HEADER_TIMEOUT": "2", "GAMMON_LIMIT_CONNECTIONS": "40"}
    with ServerProcess(f"sqlite:///{tmp_path / 's.db'}", log=tmp_path / "server.log", env=env) as server:
        trickling = _trickle(server.port, 40)
        # past the cap, a connection from the same address is answered 429 at once; another address is served
        extra = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        extra.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert extra.recv(4096).startswith(b"HTTP/1.1 429 ") and _closed(extra, 10)
        other = httpx.Client(base_url=server.url, timeout=30, transport=httpx.HTTPTransport(local_address="127.0.0.2"))
        assert other.get("/api/health").status_code == 200
        started = time.monotonic()
        assert all(_closed(sock, 30) for sock in trickling)  # cut off after the header deadline
        assert time.monotonic() - started < 30
        assert httpx.get(f"{server.url}/api/health", timeout=30).status_code == 200


def test_event_streams_are_limited_per_address(tmp_path) -> None:
    from websockets.exceptions import ConnectionClosed, InvalidHandshake
    from websockets.sync.client import connect

    env = {"GAMMON_LIMIT_WEBSOCKETS": "3"}
    with ServerProcess(f"sqlite:///{tmp_path / 's.db'}", log=tmp_path / "server.log", env=env) as server:
        http = httpx.Client(base_url=server.url, timeout=60)
        alice, _ = Client(http, "alice").register(), Client(http, "bob").register()
        match = alice.challenge("bob", length=1)["id"]
        url = server.url.replace("http://", "ws://") + f"/api/matches/{match}/events"
        held = contextlib.ExitStack()
        streams = [held.enter_context(connect(url, open_timeout=60)) for _ in range(3)]
        for stream in streams:
            assert stream.recv(timeout=60)  # the challenge
        with pytest.raises((ConnectionClosed, InvalidHandshake)), connect(url, open_timeout=60) as fourth:
            fourth.recv(timeout=60)
        for stream in streams:
            stream.close()
        deadline = time.monotonic() + 60  # the server frees a place when it reads the close
        while True:
            try:
                with connect(url, open_timeout=60) as again:
                    assert again.recv(timeout=60)
                break
            except (ConnectionClosed, InvalidHandshake):
                assert time.monotonic() < deadline, "a closed stream's place was never freed"
                time.sleep(0.05)


# -- play by mail and dice nobody can choose -------------------------------------------------------------
def test_a_challenge_by_mail_without_the_challengers_password_waits_for_them(db_url) -> None:
    with _app(db_url) as http:
        setup = "register alice wonderland1\nregister bob builder123"
        assert http.post("/pbm", content=setup).status_code == 200
        forced = http.post("/pbm", content="challenge alice bob -force")
        assert forced.status_code == 422 and "needs alice's password" in forced.text
        made = http.post("/pbm", content="challenge alice bob -match 3").text
        board = int(made.split("Board ", 1)[1].split(":", 1)[0])
        assert "alice confirms it first" in made
        early = http.post("/pbm", content=f"accept {board} bob builder123")
        assert early.status_code == 422 and "has not confirmed" in early.text
        assert http.post("/pbm", content=f"accept {board} alice wonderland1").status_code == 200
        assert "|BAR|" in http.post("/pbm", content=f"accept {board} bob builder123").text
        # -force with the password: the challenged is told so in the invitation
        told = http.post("/pbm", content="challenge alice bob wonderland1 -force -match 1").text
        assert "higher die of the first opening roll" in told
        board = int(told.split("Board ", 1)[1].split(":", 1)[0])
        bob = Client(http, "bob", "builder123").log_in()
        invitation = bob.match(board, history=True)["history"][0]
        assert invitation["description"] == "alice challenges you to a 1-point match, alice to make the opening play."
        started = bob.accept(board)
        assert started["to_act"] == "white"  # alice (white) took the higher die


def test_the_server_commits_its_seed_before_the_players_choose_theirs(db_url) -> None:
    with _app(db_url) as http:
        alice, _ = Client(http, "alice").register(), Client(http, "bob").register()
        shown = http.post("/api/commitments", headers=alice.headers).json()
        match = http.post("/api/matches", json={"opponent": "bob", "length": 1, "seed": "alice-chose-this",
                                                "commitment": shown["token"]}, headers=alice.headers).json()
        assert match["dice_proof"]["commitment"] == shown["commitment"]
        assert match["dice_proof"]["challenger_seed"] == "alice-chose-this"
        again = http.post("/api/matches", json={"opponent": "bob", "length": 1, "commitment": shown["token"]},
                          headers=alice.headers)
        assert again.status_code == 422 and "used or expired" in again.json()["detail"]
        bad = http.post("/api/matches", json={"opponent": "bob", "length": 1, "seed": "has spaces"},
                        headers=alice.headers)
        assert bad.status_code == 422 and "seed" in bad.json()["detail"]
