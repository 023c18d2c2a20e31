"""Several servers, and the faults of their own parts (issue: "Scale-out that survives its own faults").

Real processes throughout: servers started together on a new database, streams whose clients
leave, SIGTERM with streams open, the listener's connection killed under it (PostgreSQL's
LISTEN and Redis), and several worker processes behind one port.
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import threading
import time

import httpx
import pytest

from server_support import GAMMON, REDIS, Client, ServerProcess, database, need, redis_available, wait_for


def _redis_or_skip() -> None:
    need(redis_available())


_wait = wait_for


def test_three_servers_started_at_once_on_a_new_database_all_come_up(tmp_path) -> None:
    with database("postgresql", tmp_path) as url:
        migrations = [subprocess.Popen([*GAMMON, "serve", "--db", url, "--migrate-only"], stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT) for _ in range(3)]
        outputs = [process.communicate(timeout=300)[0].decode() for process in migrations]
        assert [process.returncode for process in migrations] == [0, 0, 0], outputs
    with database("postgresql", tmp_path) as url:
        servers = [ServerProcess(url, log=tmp_path / f"server{n}.log") for n in range(3)]
        errors: list[BaseException] = []

        def start(server: ServerProcess) -> None:
            try:
                server.start()
            except BaseException as error:  # noqa: BLE001 - reported below, with the others'
                errors.append(error)

        threads = [threading.Thread(target=start, args=(server,)) for server in servers]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(300)
            assert not errors, errors
            assert all(httpx.get(f"{server.url}/api/health", timeout=30).status_code == 200 for server in servers)
        finally:
            for server in servers:
                server.stop()


STREAMS = contextlib.ExitStack()  # every stream a test opens, closed at the latest when the module's tests end


def _stream(url: str):
    from websockets.sync.client import connect

    return STREAMS.enter_context(connect(url, open_timeout=60))


def _open_streams(server: ServerProcess, match: int, count: int) -> list:
    url = server.url.replace("http://", "ws://") + f"/api/matches/{match}/events"
    streams = [_stream(url) for _ in range(count)]
    for stream in streams:
        assert json.loads(stream.recv(timeout=60))["kind"] == "challenge"
    return streams


def test_streams_notice_their_clients_leaving_and_sigterm_ends_the_server_at_once(tmp_path) -> None:
    from websockets.exceptions import ConnectionClosed

    with ServerProcess(f"sqlite:///{tmp_path / 's.db'}", log=tmp_path / "server.log") as server:
        http = httpx.Client(base_url=server.url, timeout=60)
        alice, _ = Client(http, "alice").register(), Client(http, "bob").register()
        match = alice.challenge("bob", length=1)["id"]
        for stream in _open_streams(server, match, 20):
            stream.close()
        _wait(lambda: http.get("/api/health").json()["streams"] == 0, "streams closed on the server")
        # a client that disappears without a word (its socket shut) is noticed too
        silent = socket.create_connection(("127.0.0.1", server.port))
        silent.sendall(f"GET /api/matches/{match}/events HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                       "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        assert silent.recv(4096).startswith(b"HTTP/1.1 101")
        _wait(lambda: http.get("/api/health").json()["streams"] == 1, "the raw stream counted")
        silent.close()
        _wait(lambda: http.get("/api/health").json()["streams"] == 0, "the vanished client noticed")
        # SIGTERM with streams open (one of them never reads): the process ends within 5 seconds
        streams = _open_streams(server, match, 5)
        idle = socket.create_connection(("127.0.0.1", server.port))
        idle.sendall(f"GET /api/matches/{match}/events HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(30)
        assert time.monotonic() - started < 5.0, f"SIGTERM took {time.monotonic() - started:.1f} s"
        codes = []
        for stream in streams:
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    stream.recv(timeout=30)
            codes.append(closed.value.rcvd.code if closed.value.rcvd else None)
        assert set(codes) <= {1001, 1012}, codes  # going away / service restart: come back later
        idle.close()


def _listener_pid(url: str) -> list[int]:
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as connection:
        return [row[0] for row in connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND (query LIKE 'LISTEN%' OR query = 'SELECT ''gammon listener''')")]


def _kill_postgres(url: str, pids: list[int]) -> None:
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as connection:
        for pid in pids:
            connection.execute("SELECT pg_terminate_backend(%s)", (pid,))


def _kill_redis_listeners() -> int:
    import redis

    client = redis.Redis.from_url(REDIS)
    return int(client.client_kill_filter(_type="pubsub"))


@pytest.mark.parametrize("carrier", ["postgresql", "redis"])
def test_a_listener_killed_under_a_server_comes_back_and_its_watchers_hear_again(carrier, tmp_path) -> None:

    if carrier == "redis":
        _redis_or_skip()
    extra = ("--redis", REDIS) if carrier == "redis" else ()
    with database("postgresql", tmp_path) as url:
        first = ServerProcess(url, *extra, log=tmp_path / "first.log").start()
        second = ServerProcess(url, *extra, log=tmp_path / "second.log").start()
        try:
            alice = Client(httpx.Client(base_url=first.url, timeout=60), "alice").register()
            bob = Client(httpx.Client(base_url=first.url, timeout=60), "bob").register()
            match = alice.challenge("bob", length=1)["id"]
            state = bob.accept(match)
            watcher = _stream(second.url.replace("http://", "ws://") + f"/api/matches/{match}/events")
            for _ in range(state["last_seq"] + 1):
                watcher.recv(timeout=60)
            health = httpx.get(f"{second.url}/api/health", timeout=30).json()
            assert health["events"]["listening"] and health["events"]["listener"] == carrier
            killed = _kill_redis_listeners() if carrier == "redis" else _kill_postgres(url, _listener_pid(url)) or 1
            assert killed
            _wait(lambda: httpx.get(f"{second.url}/api/health", timeout=30).json()["events"]["reconnects"] >= 1,
                  "the listener's reconnection")
            _wait(lambda: httpx.get(f"{second.url}/api/health", timeout=30).json()["status"] == "ok", "a healthy listener")
            players = {"alice": alice, "bob": bob}
            mover = players[state["players"][state["to_act"]]]
            acted = time.monotonic()
            mover.act(match, action="play", play=state["legal"][0], version=state["version"])  # on the first server
            heard = json.loads(watcher.recv(timeout=30))
            assert heard["kind"] == "play" and time.monotonic() - acted < 10
            watcher.close()
        finally:
            first.stop()
            second.stop()


def test_several_worker_processes_share_one_port_and_one_match(tmp_path) -> None:

    with database("postgresql", tmp_path) as url, \
            ServerProcess(url, "--workers", "2", log=tmp_path / "server.log") as server:
        seen = set()
        for _ in range(200):  # a new connection each time: the kernel hands them to either process
            seen.add(httpx.get(f"{server.url}/api/health", timeout=30).json()["process"])
            if len(seen) > 1:
                break
        assert len(seen) == 2, seen
        alice = Client(httpx.Client(base_url=server.url, timeout=60), "alice").register()
        bob = Client(httpx.Client(base_url=server.url, timeout=60), "bob").register()
        match = alice.challenge("bob", length=1)["id"]
        state = bob.accept(match)
        watchers = [_stream(server.url.replace("http://", "ws://") + f"/api/matches/{match}/events")
                    for _ in range(6)]
        for watcher in watchers:
            for _ in range(state["last_seq"] + 1):
                watcher.recv(timeout=60)
        caught_up = state["last_seq"]
        players = {"alice": alice, "bob": bob}
        for _ in range(6):  # actions through fresh connections, so through either process
            state = httpx.get(f"{server.url}/api/matches/{match}", timeout=30).json()
            if state["status"] != "playing":
                break
            actor = players[state["players"][state["to_act"]]]
            body = {"action": "play", "play": state["legal"][0]} if "play" in state["actions"] else {"action": "roll"}
            answer = httpx.post(f"{server.url}/api/matches/{match}/actions", json={**body, "version": state["version"]},
                                headers=actor.headers, timeout=30)
            assert answer.status_code == 200, answer.text
        last = httpx.get(f"{server.url}/api/matches/{match}", timeout=30).json()["last_seq"]
        for watcher in watchers:  # every watcher, on whichever process, heard every event once, in order
            heard = []
            while not heard or heard[-1] < last:
                heard.append(json.loads(watcher.recv(timeout=30))["seq"])
            assert heard == list(range(caught_up + 1, last + 1))
            watcher.close()

