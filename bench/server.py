"""The game server under load: actions per second and their latency, on SQLite and PostgreSQL side by side.

    python bench/server.py [--matches 24] [--bots 0] [--seconds 30] [--db sqlite,postgresql]
                           [--workers 1] [--watchers 2000] [--gammon "PYTHON -m gammon"]

For each database, starts ``gammon serve`` on a fresh database (PostgreSQL at 127.0.0.1:5432,
trust auth, as on CI's machine), then plays ``--matches`` matches between simulated people on
loopback for ``--seconds``: each person is a thread with its own keep-alive connection, and
acts the moment its answer (or its opponent's) says it is to act — every action is one
``POST /api/matches/{id}/actions`` whose answer is the new state; a new match is challenged
and accepted when one ends. ``--bots`` more people play ``bot:random`` (polling while the bot
thinks). Meanwhile ``--watchers`` WebSocket streams (in a second process, asyncio) watch the
matches and must each receive every event of their match once, in order.

Prints, per database: actions applied per second, the p50/p99/max latency of an action (the
whole round trip), the server's commits (each a batch of writes), and the watchers' result.
``--gammon`` runs another checkout's server (``"/old/.venv/bin/python -m gammon"``) for a
before/after comparison in the same run; a server that cannot bind port 0 is given a port.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import random
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from statistics import quantiles
from typing import Any

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
PASSWORD = "bench-password"
STARTED = re.compile(rb"gammon serve: http://[^:]+:(\d+)/")


@contextlib.contextmanager
def database(kind: str, folder: Path):
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'bench.db'}"
        return
    import psycopg

    name = f"gammon_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Api:
    """One keep-alive HTTP connection speaking JSON (http.client: the cheapest client at hand)."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port, self.token = port, token
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None if body is None else json.dumps(body)
        for attempt in range(3):
            try:
                self.connection.request(method, path, body=data, headers=headers)
                response = self.connection.getresponse()
                raw = response.read()
                return response.status, (json.loads(raw) if raw else None)
            except (ConnectionError, http.client.HTTPException):
                self.connection.close()
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def person(port: int, name: str) -> Api:
    api = Api(port)
    status, answer = api.call("POST", "/api/users", {"name": name, "password": PASSWORD})
    assert status == 201, (status, answer)
    status, answer = api.call("POST", "/api/sessions", {"name": name, "password": PASSWORD})
    assert status == 200, (status, answer)
    api.token = answer["token"]
    return api


def choose(state: dict, rng: random.Random) -> dict:
    actions = state["actions"]
    if "play" in actions:
        return {"action": "play", "play": rng.choice(state["legal"])}
    if "take" in actions:
        return {"action": "take"}
    if "accept" in actions:
        return {"action": "accept"}
    if "double" in actions and rng.random() < 0.05:
        return {"action": "double"}
    return {"action": "roll"}


class Table:
    """Two people and their match: each person's thread acts when the shared state says it is to act."""

    def __init__(self, port: int, number: int, latencies: list[float], matches: list[int]) -> None:
        self.players = {f"a{number}": person(port, f"a{number}"), f"b{number}": person(port, f"b{number}")}
        self.latencies, self.matches = latencies, matches
        self.state: dict | None = None
        self.changed = threading.Condition()
        self.rng = random.Random(number)

    def new_match(self, stop: float) -> None:
        (_first, api_a), (second, api_b) = self.players.items()
        status, made = api_a.call("POST", "/api/matches", {"opponent": second, "length": 3})
        assert status == 201, made
        status, state = api_b.call("POST", f"/api/matches/{made['id']}/accept", None)
        assert status == 200, state
        self.matches.append(made["id"])
        self.state = state

    def play(self, name: str, stop: float) -> None:
        api = self.players[name]
        while time.monotonic() < stop:
            with self.changed:
                while self.state is not None and self.state["status"] == "playing" and \
                        self.state["players"][self.state["to_act"]] != name and time.monotonic() < stop:
                    self.changed.wait(0.5)
                state = self.state
            if time.monotonic() >= stop:
                return
            if state is None or state["status"] != "playing":
                if name.startswith("a"):  # the challenger starts the next match
                    self.new_match(stop)
                    with self.changed:
                        self.changed.notify_all()
                else:
                    with self.changed:
                        self.changed.wait(0.5)
                continue
            body = {"version": state["version"], **choose(state, self.rng)}
            started = time.perf_counter()
            status, answer = api.call("POST", f"/api/matches/{state['id']}/actions", body)
            elapsed = time.perf_counter() - started
            if status != 200:
                raise SystemExit(f"bench: an action was refused: {status} {answer}")
            self.latencies.append(elapsed)
            with self.changed:
                self.state = answer
                self.changed.notify_all()


def against_bot(port: int, number: int, stop: float, latencies: list[float]) -> None:
    api = person(port, f"c{number}")
    rng = random.Random(1000 + number)
    match = None
    while time.monotonic() < stop:
        if match is None:
            status, made = api.call("POST", "/api/matches", {"opponent": "bot:random", "length": 3})
            assert status == 201, made
            match = made["id"]
        status, state = api.call("GET", f"/api/matches/{match}")
        if state["status"] != "playing":
            match = None
            continue
        if state["players"][state["to_act"]] != f"c{number}":
            time.sleep(0.005)
            continue
        started = time.perf_counter()
        status, _answer = api.call("POST", f"/api/matches/{match}/actions",
                                  {"version": state["version"], **choose(state, rng)})
        if status == 200:
            latencies.append(time.perf_counter() - started)


def watch(port: int, matches: list[int], watchers: int, seconds: float, out: Any) -> None:
    """In a process of its own: ``watchers`` streams over ``matches``; for each, the events it got."""
    import asyncio

    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    async def one(match: int, results: list) -> None:
        heard: list[int] = []
        try:
            async with connect(f"ws://127.0.0.1:{port}/api/matches/{match}/events?after=-1", open_timeout=120,
                               max_queue=None) as stream:
                deadline = time.monotonic() + seconds
                while time.monotonic() < deadline:
                    try:
                        message = await asyncio.wait_for(stream.recv(), max(0.1, deadline - time.monotonic()))
                    except TimeoutError:
                        break
                    heard.append(json.loads(message)["seq"])
        except (OSError, TimeoutError, WebSocketException) as error:  # a refused or dropped stream: the report shows it
            results.append((match, heard, f"{type(error).__name__}: {error}"))
            return
        results.append((match, heard, None))

    async def run() -> list:
        results: list = []
        opening = asyncio.Semaphore(64)  # handshakes at once: no burst of 2,000 connects from one address

        async def paced(match: int) -> None:
            async with opening:
                await asyncio.sleep(0)
            await one(match, results)

        await asyncio.gather(*(paced(matches[n % len(matches)]) for n in range(watchers)))
        return results

    out.send(asyncio.run(run()))


def start_server(command: list[str], url: str, workers: int, folder: Path) -> tuple[subprocess.Popen, int]:
    log = open(folder / "server.log", "wb")
    port_args = ["--port", "0"]
    if "-m gammon" in " ".join(command) and os.path.dirname(command[0]) != os.path.dirname(sys.executable):
        with socket.socket() as probe:  # an older server that cannot bind port 0 itself
            probe.bind(("127.0.0.1", 0))
            port_args = ["--port", str(probe.getsockname()[1])]
    extra = ["--workers", str(workers)] if workers > 1 else []
    env = {**os.environ, "GAMMON_LIMIT_REGISTRATIONS": "100000", "GAMMON_LIMIT_LOGIN_PER_ADDRESS": "100000"}
    process = subprocess.Popen([*command, "serve", "--db", url, *port_args, "--bot-workers", "1", *extra],
                               stdout=log, stderr=log, env=env)
    deadline = time.monotonic() + 300
    port = int(port_args[1])
    while time.monotonic() < deadline:
        text = (folder / "server.log").read_bytes()
        found = STARTED.search(text)
        if found:
            port = int(found.group(1))
        if process.poll() is not None:
            raise SystemExit(f"bench: gammon serve exited: {text.decode()[-2000:]}")
        if port:
            with contextlib.suppress(OSError, http.client.HTTPException):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", "/api/health")
                if connection.getresponse().status == 200:
                    return process, port
        time.sleep(0.1)
    raise SystemExit("bench: gammon serve did not answer")


def run(kind: str, args: argparse.Namespace, command: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder, database(kind, Path(folder)) as url:
        server, port = start_server(command, url, args.workers, Path(folder))
        try:
            latencies: list[float] = []
            matches: list[int] = []
            tables = [Table(port, n, latencies, matches) for n in range(args.matches)]
            for table in tables:
                table.new_match(0)
            stop = time.monotonic() + args.seconds
            threads = [threading.Thread(target=table.play, args=(name, stop)) for table in tables for name in table.players]
            threads += [threading.Thread(target=against_bot, args=(port, n, stop, latencies)) for n in range(args.bots)]
            watching = None
            if args.watchers:
                receiver, sender = multiprocessing.Pipe(duplex=False)
                watching = multiprocessing.Process(target=watch, args=(port, list(matches), args.watchers,
                                                                       args.seconds + 10, sender))
                watching.start()
                time.sleep(0)  # the watchers catch up from each match's start, whenever they connect
            started = time.monotonic()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.monotonic() - started
            health = Api(port).call("GET", "/api/health")[1]
            watched = "-"
            if watching is not None:
                results = receiver.recv()
                watching.join()
                final = {}
                for match in set(matches[: args.matches]):
                    final[match] = Api(port).call("GET", f"/api/matches/{match}")[1]["last_seq"]
                whole = sum(1 for match, heard, error in results
                            if error is None and heard == list(range(len(heard))) and heard and heard[-1] >= final[match])
                failed = [error for _, _, error in results if error]
                watched = f"{whole}/{len(results)} whole" + (f" ({len(failed)} failed: {failed[0]})" if failed else "")
        finally:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(30)
            if server.poll() is None:
                server.kill()

        def pct(values: list[float]) -> str:
            if len(values) < 2:
                return "      -       -       -"
            cuts = quantiles(values, n=100)
            return f"{cuts[49] * 1000:7.1f} {cuts[98] * 1000:7.1f} {max(values) * 1000:7.1f}"

        commits = (health or {}).get("writer", {}).get("commits", "-") if isinstance(health, dict) else "-"
        print(f"{kind:<11} {len(latencies) / elapsed:9.1f}   {pct(latencies)}   {commits!s:>8}   {watched}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=24, help="matches between two simulated people (a thread each)")
    parser.add_argument("--bots", type=int, default=0, help="simulated people playing bot:random")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long each database is loaded")
    parser.add_argument("--db", default="sqlite,postgresql", help="which databases, comma-separated")
    parser.add_argument("--workers", type=int, default=1, help="server processes (PostgreSQL only for more than 1)")
    parser.add_argument("--watchers", type=int, default=0, help="WebSocket streams watching the matches meanwhile")
    parser.add_argument("--gammon", default=f"{sys.executable} -m gammon", help="the command that runs gammon")
    args = parser.parse_args()
    command = shlex.split(args.gammon)
    print(f"{args.matches} person-person matches ({2 * args.matches} players, a thread each), {args.bots} against "
          f"bot:random, {args.watchers} watchers, {args.seconds:.0f} s each; server: {args.gammon}"
          + (f", {args.workers} processes" if args.workers > 1 else ""))
    print("database    actions/s    p50     p99     max ms   commits   watchers")
    for kind in args.db.split(","):
        if kind.strip() == "sqlite" and args.workers > 1:
            print("sqlite      (one process: SQLite has one writer)")
            continue
        run(kind.strip(), args, command)


if __name__ == "__main__":
    main()
