"""The game server under load: actions per second and their latency, on SQLite and on PostgreSQL.

    python bench/server.py [--pairs 8] [--bots 2] [--bot nn] [--seconds 30] [--db sqlite,postgresql]

For each database, starts ``gammon serve`` (a fresh database; PostgreSQL at 127.0.0.1:5432,
trust auth, as on CI's machine), then runs simulated players on loopback for a bounded
time: ``--pairs`` matches between two people, each person a thread acting as soon as it
is to act (random legal actions, a new match when one ends), and ``--bots`` people playing
against ``bot:NAME`` (whose thinking runs in the server's worker pool). Prints, per
database, the actions applied per second, the p50 and p99 latency of an action
(``POST /api/matches/{id}/actions``, the whole round trip: one transaction each), the
same for people playing bots, and how many bot moves were made meanwhile.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from statistics import quantiles

import httpx

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"


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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Person:
    def __init__(self, url: str, name: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=120)
        self.name = name
        assert self.http.post("/api/users", json={"name": name, "password": "bench-password"}).status_code == 201
        token = self.http.post("/api/sessions", json={"name": name, "password": "bench-password"}).json()["token"]
        self.http.headers["Authorization"] = f"Bearer {token}"


def answer(response: httpx.Response) -> dict:
    """The JSON of a successful answer; anything else stops the bench with what the server said."""
    if response.status_code >= 300:
        raise SystemExit(f"bench: {response.request.method} {response.request.url.path}: "
                         f"{response.status_code} {response.text[:300]}")
    return response.json()


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


def player_loop(me: Person, opponent: str, partner: Person | None, stop: float, seed: int,
                latencies: list[float], lock: threading.Lock) -> None:
    """Challenge ``opponent`` (accepted by ``partner`` or the bot), then act whenever it is ``me``'s turn."""
    rng = random.Random(seed)
    match_id = None
    while time.monotonic() < stop:
        if match_id is None:
            match_id = answer(me.http.post("/api/matches", json={"opponent": opponent, "length": 3}))["id"]
            if partner is not None:
                answer(partner.http.post(f"/api/matches/{match_id}/accept"))
        state = answer(me.http.get(f"/api/matches/{match_id}"))
        if state["status"] != "playing":
            match_id = None
            continue
        actor = state["players"][state["to_act"]]
        person = me if actor == me.name else partner if partner is not None and actor == partner.name else None
        if person is None:
            time.sleep(0.01)  # the bot is thinking
            continue
        started = time.perf_counter()
        reply = person.http.post(f"/api/matches/{match_id}/actions", json={"version": state["version"], **choose(state, rng)})
        elapsed = time.perf_counter() - started
        answer(reply)
        with lock:
            latencies.append(elapsed)


def run(kind: str, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder, database(kind, Path(folder)) as url:
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "gammon", "serve", "--db", url, "--port", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{base}/api/health").status_code == 200:
                        break
                time.sleep(0.1)
            people_latency: list[float] = []
            bot_latency: list[float] = []
            lock = threading.Lock()
            threads = []
            stop = time.monotonic() + args.seconds
            for pair in range(args.pairs):
                a, b = Person(base, f"a{pair}"), Person(base, f"b{pair}")
                threads.append(threading.Thread(target=player_loop,
                                                args=(a, b.name, b, stop, pair, people_latency, lock)))
            for n in range(args.bots):
                me = Person(base, f"c{n}")
                threads.append(threading.Thread(target=player_loop,
                                                args=(me, f"bot:{args.bot}", None, stop, 1000 + n, bot_latency, lock)))
            started = time.monotonic()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.monotonic() - started
            bot_moves = 0
            for n in range(args.bots):
                for row in answer(httpx.get(f"{base}/api/matches", params={"user": f"c{n}", "limit": 500}, timeout=120)):
                    state = answer(httpx.get(f"{base}/api/matches/{row['id']}", timeout=120))
                    bot_moves += sum(1 for e in state["history"] if e["color"] == "black" and e["kind"] == "play")
        finally:
            server.terminate()
            server.wait(30)
        total = len(people_latency) + len(bot_latency)

        def pct(values: list[float]) -> str:
            if len(values) < 2:
                return "      -       -"
            cuts = quantiles(values, n=100)
            return f"{cuts[49] * 1000:7.1f} {cuts[98] * 1000:7.1f}"

        print(f"{kind:<11} {total / elapsed:9.1f} {pct(people_latency)}   {pct(bot_latency)}  {bot_moves:9d}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=8, help="matches between two simulated people")
    parser.add_argument("--bots", type=int, default=2, help="simulated people playing a bot")
    parser.add_argument("--bot", default="nn", help="the bot they play (default nn: the net at 0 ply)")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long each database is loaded")
    parser.add_argument("--db", default="sqlite,postgresql", help="which databases, comma-separated")
    args = parser.parse_args()
    print(f"{args.pairs} person-person matches and {args.bots} against bot:{args.bot}, {args.seconds:.0f} s each, "
          "actions by simulated players on loopback")
    print("database    actions/s  people p50/p99 ms   vs-bot p50/p99 ms  bot moves")
    for kind in args.db.split(","):
        run(kind.strip(), args)


if __name__ == "__main__":
    main()
