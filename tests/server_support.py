"""What the server tests share: the two databases, a real ``gammon serve`` process, and a player's client.

Every server test runs on SQLite and on PostgreSQL (127.0.0.1:5432, trust auth, as on CI's
machine): each PostgreSQL test gets a database of its own, dropped afterwards. Where no
PostgreSQL answers, its tests skip with that reason, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

PG_ADMIN = os.environ.get("GAMMON_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("GAMMON_TEST_REDIS", "redis://127.0.0.1:6379/0")
GAMMON = [sys.executable, "-m", "gammon"]


def postgres_available() -> str | None:
    """None when PostgreSQL answers, else why not."""
    import psycopg

    try:
        with psycopg.connect(PG_ADMIN, connect_timeout=5):
            return None
    except psycopg.Error as error:
        return f"no PostgreSQL at {PG_ADMIN}: {str(error).strip().splitlines()[0]}"


def need(reason: str | None) -> None:
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the PostgreSQL tests must run)")
    pytest.skip(reason)


@contextlib.contextmanager
def postgres_database() -> Iterator[str]:
    """A new, empty PostgreSQL database's SQLAlchemy URL; dropped afterwards."""
    import psycopg

    need(postgres_available())
    name = f"gammon_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://")
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def database(kind: str, tmp_path: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'server.db'}"
    else:
        with postgres_database() as url:
            yield url


#: What ``gammon serve`` prints on start, one line a listener, with the port it took.
STARTUP_LINES = {"port": re.compile(r"^gammon serve: http://\S+:(\d+)/"),
                 "pbm_port": re.compile(r"^gammon serve: play by mail on \S+:(\d+) "),
                 "smtp_port": re.compile(r"^gammon serve: play by e-mail on SMTP \S+:(\d+),")}


class ServerProcess:
    """``gammon serve`` as a user starts it; :meth:`kill` is ``kill -9``.

    The server binds port 0 and says which port it took (and the play-by-mail line port's with
    ``pbm``, the SMTP listener's with ``smtp``): no port is chosen here and freed before the
    server binds it. A restart takes the same ports again, so clients keep their address.
    """

    def __init__(self, db_url: str, *extra: str, log: Path | None = None, pbm: bool = False,
                 smtp: bool = False) -> None:
        self.db_url, self.extra, self.log = db_url, extra, log
        self.ports: dict[str, int | None] = {"port": None, "pbm_port": None, "smtp_port": None}
        self.wanted = ["port"] + ["pbm_port"] * pbm + ["smtp_port"] * smtp
        self.process: subprocess.Popen | None = None

    @property
    def port(self) -> int:
        assert self.ports["port"] is not None, "the server has not started"
        return self.ports["port"]

    @property
    def pbm_port(self) -> int:
        assert self.ports["pbm_port"] is not None, "the server has no line port (pbm=True)"
        return self.ports["pbm_port"]

    @property
    def smtp_port(self) -> int:
        assert self.ports["smtp_port"] is not None, "the server has no SMTP listener (smtp=True)"
        return self.ports["smtp_port"]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 180.0) -> ServerProcess:
        flags = {"port": "--port", "pbm_port": "--pbm-port", "smtp_port": "--smtp-port"}
        ports = [word for key in self.wanted for word in (flags[key], str(self.ports[key] or 0))]
        log = open(self.log, "ab") if self.log else subprocess.DEVNULL
        self.process = subprocess.Popen([*GAMMON, "serve", "--db", self.db_url, *ports, "--bot-workers", "1",
                                         *self.extra], stdout=subprocess.PIPE, stderr=log)
        told: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=_copy_lines, args=(self.process.stdout, told, log), daemon=True).start()
        deadline = time.monotonic() + timeout
        missing = set(self.wanted)
        while missing:
            try:
                line = told.get(timeout=max(0.0, deadline - time.monotonic())).decode("utf-8", "replace")
            except queue.Empty:
                raise AssertionError(f"gammon serve did not tell its ports within {timeout} s") from None
            if not line:
                raise AssertionError(f"gammon serve exited with {self.process.wait(30)} before telling its ports")
            for key in list(missing):
                found = STARTUP_LINES[key].match(line)
                if found:
                    self.ports[key] = int(found.group(1))
                    missing.discard(key)
        # The ports listen from here on; the first answer comes once the server has started.
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"gammon serve exited with {self.process.returncode}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=max(1.0, deadline - time.monotonic())).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)  # refused or reset: the process is about to exit, or to be up
        raise AssertionError(f"gammon serve did not answer within {timeout} s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _copy_lines(stream: Any, told: queue.Queue[bytes], log: Any) -> None:
    """Hand each line the server prints to ``told`` (b"" at its end) and keep it in ``log``."""
    for line in stream:
        told.put(line)
        if log is not subprocess.DEVNULL:
            log.write(line)
            log.flush()
    told.put(b"")

class Client:
    """One person's view of the API: registers, logs in, and acts with their token."""

    def __init__(self, http: Any, name: str, password: str = "correct horse") -> None:
        self.http, self.name, self.password = http, name, password
        self.token: str | None = None

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def register(self) -> Client:
        response = self.http.post("/api/users", json={"name": self.name, "password": self.password})
        assert response.status_code == 201, response.text
        return self.log_in()

    def log_in(self) -> Client:
        response = self.http.post("/api/sessions", json={"name": self.name, "password": self.password})
        assert response.status_code == 200, response.text
        self.token = response.json()["token"]
        return self

    def challenge(self, opponent: str, length: int = 1, **options: bool) -> dict[str, Any]:
        response = self.http.post("/api/matches", json={"opponent": opponent, "length": length, "options": options},
                                  headers=self.headers)
        assert response.status_code == 201, response.text
        return response.json()

    def accept(self, match_id: int) -> dict[str, Any]:
        response = self.http.post(f"/api/matches/{match_id}/accept", headers=self.headers)
        assert response.status_code == 200, response.text
        return response.json()

    def match(self, match_id: int) -> dict[str, Any]:
        response = self.http.get(f"/api/matches/{match_id}")
        assert response.status_code == 200, response.text
        return response.json()

    def post(self, match_id: int, **body: Any) -> Any:
        return self.http.post(f"/api/matches/{match_id}/actions", json=body, headers=self.headers)

    def act(self, match_id: int, **body: Any) -> dict[str, Any]:
        response = self.post(match_id, **body)
        assert response.status_code == 200, response.text
        return response.json()


def choose(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random but legal action for the side to act, as a simulated player chooses."""
    actions = state["actions"]
    if "play" in actions:
        return {"action": "play", "play": rng.choice(state["legal"])}
    if "take" in actions:
        return {"action": rng.choice(["take", "take", "drop"])}
    if "accept" in actions:
        return {"action": rng.choice(["accept", "reject"])}
    if "double" in actions and rng.random() < 0.1:
        return {"action": "double"}
    if rng.random() < 0.01:
        return {"action": "resign", "value": 1}
    return {"action": "roll"}


def play_out(players: dict[str, Client], match_id: int, rng: random.Random, *, limit: float = 600.0,
             moves: int | None = None) -> dict[str, Any]:
    """Play the match (people by random legal actions; bots by the server) to its end, or ``moves`` actions."""
    viewer = next(iter(players.values()))
    deadline = time.monotonic() + limit
    done = 0
    while time.monotonic() < deadline:
        state = viewer.match(match_id)
        if state["status"] != "playing" or (moves is not None and done >= moves):
            return state
        to_act = state["to_act"] and state["players"][state["to_act"]]
        if to_act not in players:
            time.sleep(0.02)  # a bot is thinking
            continue
        players[to_act].act(match_id, version=state["version"], **choose(state, rng))
        done += 1
    raise AssertionError(f"match {match_id} did not end within {limit} s")
