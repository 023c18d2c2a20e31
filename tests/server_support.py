"""What the server tests share: the two databases, a real ``gammon serve`` process, and a player's client.

Every server test runs on SQLite and on PostgreSQL (127.0.0.1:5432, trust auth, as on CI's
machine): each PostgreSQL test gets a database of its own, dropped afterwards. Where no
PostgreSQL answers, its tests skip with that reason, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import subprocess
import sys
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


def redis_available() -> str | None:
    """None when Redis answers, else why not."""
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_timeout=5).ping()
        return None
    except redis.RedisError as error:
        return f"no Redis at {REDIS}: {error}"


def wait_for(condition: Any, what: str, timeout: float = 120.0) -> Any:
    """``condition()``'s first true value, asked again and again: an answer must come, not come fast."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"no {what} within {timeout} s")


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


STARTED = re.compile(rb"gammon serve: http://[^:]+:(\d+)/")
DOOR = re.compile(rb"gammon serve: play by mail on [^:]+:(\d+)")
SMTP_DOOR = re.compile(rb"gammon serve: play by e-mail on SMTP [^:]+:(\d+)")


class ServerProcess:
    """``gammon serve`` as a user starts it, on port 0 (the port it binds is read from what it
    prints: nothing is handed out before it is bound); :meth:`kill` is ``kill -9``.

    ``port`` (and ``pbm_port``/``smtp_port`` when their flags are ``0``) are known once started;
    a restart keeps the ports of the first start."""

    def __init__(self, db_url: str, *extra: str, log: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.db_url, self.extra = db_url, list(extra)
        self.port = 0
        self.pbm_port: int | None = None
        self.smtp_port: int | None = None
        self.log = log or Path(os.environ.get("TMPDIR", "/tmp")) / f"gammon-serve-{uuid.uuid4().hex[:8]}.log"
        self.env = env
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _arguments(self) -> list[str]:
        extra = list(self.extra)
        for flag, port in (("--pbm-port", self.pbm_port), ("--smtp-port", self.smtp_port)):
            if port and flag in extra:
                extra[extra.index(flag) + 1] = str(port)
        return [*GAMMON, "serve", "--db", self.db_url, "--port", str(self.port), "--bot-workers", "1", *extra]

    def start(self, timeout: float = 180.0) -> ServerProcess:
        with open(self.log, "ab") as out:
            start = out.tell()
            self.process = subprocess.Popen(self._arguments(), stdout=out, stderr=out,
                                            env={**os.environ, **(self.env or {})})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log.read_bytes()[start:]
            if self.process.poll() is not None:
                raise AssertionError(f"gammon serve exited with {self.process.returncode}: {text.decode()[-2000:]}")
            found = STARTED.search(text)
            if found:
                self.port = int(found.group(1))
                for pattern, name in ((DOOR, "pbm_port"), (SMTP_DOOR, "smtp_port")):
                    door = pattern.search(text)
                    if door:
                        setattr(self, name, int(door.group(1)))
                try:
                    if httpx.get(f"{self.url}/api/health", timeout=5).status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
            time.sleep(0.05)
        raise AssertionError(f"gammon serve did not answer within {timeout} s")

    def output(self) -> str:
        return self.log.read_text(errors="replace")

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

    def match(self, match_id: int, history: bool = False) -> dict[str, Any]:
        response = self.http.get(f"/api/matches/{match_id}" + ("?history=all" if history else ""))
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
            return viewer.match(match_id, history=True)
        to_act = state["to_act"] and state["players"][state["to_act"]]
        if to_act not in players:
            time.sleep(0.02)  # a bot is thinking
            continue
        players[to_act].act(match_id, version=state["version"], **choose(state, rng))
        done += 1
    raise AssertionError(f"match {match_id} did not end within {limit} s")


def long_record(length: int = 25, actions: int = 3500, seed: int = 5) -> str:
    """A long match's ``.mat`` text, played by random legal plays without the cube, cut at the
    first game's end after ``actions`` actions (3500: ~50 KB, under the upload limit): a record
    that takes seconds to read, replay and judge, and stays legal."""
    from gammon.dice import SeededDice
    from gammon.match import Match
    from gammon.record import MatchRecord
    from gammon.state import GameState, GameStatus

    rng = random.Random(seed)
    match = Match.from_state(GameState(match_length=length, status=GameStatus.NONE), dice=SeededDice(seed))
    while not match.is_over:
        if match.game_over:
            if len(match.history) >= actions:
                break
            match.new_game()
        elif match.state.dice is None:
            match.roll()
        else:
            match.play(rng.choice(match.legal_plays))
    return MatchRecord.from_match(match, white="white", black="black").mat()
