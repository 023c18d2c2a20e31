"""``gammon serve`` as real processes: kill -9 at any moment loses nothing acknowledged, conflicting
submissions apply exactly once, and two servers on one PostgreSQL serve the same matches live."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest

from server_support import REDIS, Client, ServerProcess, choose, database, need, play_out, redis_available, wait_for


def _events(events):
    """What an event is, whoever is told it (the sentences are told for each listener)."""
    return [(event["seq"], event["kind"], event["color"], json.dumps(event["data"], sort_keys=True))
            for event in events]


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_kill_9_between_and_during_requests_loses_no_acknowledged_action(kind, tmp_path):
    rng = random.Random(2026)
    with database(kind, tmp_path) as url:
        server = ServerProcess(url, log=tmp_path / "server.log").start()
        try:
            http = httpx.Client(base_url=server.url, timeout=60)
            alice, bob = Client(http, "alice").register(), Client(http, "bob").register()
            match = alice.challenge("bob", length=3)["id"]
            against_bot = bob.challenge("bot:pubeval", length=1)["id"]  # its bot is killed mid-thought too
            bob.accept(match)
            acknowledged = _events(alice.match(match, history=True)["history"])
            players = {"alice": alice, "bob": bob}
            kills = actions = 0
            while True:
                state = alice.match(match, history=True)
                assert _events(state["history"])[:len(acknowledged)] == acknowledged
                # what a reader was shown is durable too: an action whose answer a kill cut off may have
                # landed, and from now on it must survive every later kill as the acknowledged ones do
                acknowledged = _events(state["history"])
                if state["status"] != "playing":
                    break
                mover = players[state["players"][state["to_act"]]]
                body = {"version": state["version"], **choose(state, rng)}
                actions += 1
                # about one action in eight at random, and every fourth until three kills (the server's
                # dice decide how long the match lasts: a short one, a dozen actions, must still see its kills)
                if kills < 6 and (rng.random() < 0.12 or (kills < 3 and actions % 4 == 0)):
                    # kill -9 while a request may be in flight, or just after an answer
                    answers: list = []

                    def send() -> None:
                        try:
                            answers.append(mover.post(match, **body))  # noqa: B023 - called within this iteration
                        except httpx.HTTPError as error:
                            answers.append(error)  # noqa: B023 - called within this iteration

                    sender = threading.Thread(target=send)
                    sender.start()
                    time.sleep(rng.choice([0.0, 0.002, 0.01, 0.05]))
                    server.kill()
                    sender.join(60)
                    kills += 1
                    answer = answers[0] if answers else None
                    if isinstance(answer, httpx.Response) and answer.status_code == 200:
                        acknowledged += _events(answer.json()["events"])
                    server.start()
                    continue
                answer = mover.post(match, **body)
                assert answer.status_code == 200, answer.text
                acknowledged += _events(answer.json()["events"])
            assert kills >= 3 and state["status"] == "finished"
            # the bot's match goes on after the restarts: the server finds the bots that are to act
            assert play_out({"bob": bob}, against_bot, rng)["status"] == "finished"
            # and every roll, across the restarts, follows from the match's seed
            run = subprocess.run([sys.executable, "-m", "gammon", "verify-dice", "--url", f"{server.url}/api/matches/{match}"],
                                 capture_output=True, text=True, timeout=120)
            assert run.returncode == 0 and "rolls regenerated" in run.stdout, run.stderr
        finally:
            server.stop()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_of_two_conflicting_submissions_exactly_one_applies(kind, tmp_path):
    rng = random.Random(7)
    with database(kind, tmp_path) as url, ServerProcess(url, log=tmp_path / "server.log") as server:
        http = httpx.Client(base_url=server.url, timeout=60)
        alice, bob = Client(http, "alice").register(), Client(http, "bob").register()
        match = alice.challenge("bob", length=5)["id"]
        bob.accept(match)
        players = {"alice": alice, "bob": bob}
        rounds = 0
        while rounds < 12:
            state = alice.match(match)
            assert state["status"] == "playing"
            mover = players[state["players"][state["to_act"]]]
            bodies = [{"version": state["version"], **choose(state, rng)} for _ in range(2)]
            if "play" in state["actions"] and len(state["legal"]) > 1:
                bodies[1]["play"] = next(p for p in state["legal"] if p != bodies[0]["play"])
            barrier = threading.Barrier(2)
            codes: list[int] = []

            def send(body) -> None:  # type: ignore[no-untyped-def]
                client = httpx.Client(base_url=server.url, timeout=60)
                barrier.wait()  # noqa: B023 - called within this iteration
                codes.append(client.post(f"/api/matches/{match}/actions", json=body, headers=mover.headers).status_code)  # noqa: B023 - called within this iteration

            threads = [threading.Thread(target=send, args=(body,)) for body in bodies]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            assert sorted(codes) == [200, 409], codes
            after = alice.match(match)
            assert after["version"] == state["version"] + 1
            rounds += 1


def test_two_servers_on_one_postgresql_serve_the_same_match_live_through_redis(tmp_path):
    import redis

    need(redis_available())
    from websockets.sync.client import connect

    with database("postgresql", tmp_path) as url:
        first = ServerProcess(url, "--redis", REDIS, log=tmp_path / "first.log").start()
        second = ServerProcess(url, "--redis", REDIS, log=tmp_path / "second.log").start()
        try:
            alice = Client(httpx.Client(base_url=first.url, timeout=60), "alice").register()
            bob = Client(httpx.Client(base_url=second.url, timeout=60), "bob").register()
            match = alice.challenge("bob", length=1)["id"]
            state = bob.accept(match)  # accepted on the second server
            assert alice.match(match)["version"] == state["version"]
            listener = redis.Redis.from_url(REDIS).pubsub()
            listener.subscribe("gammon:matches")
            assert listener.get_message(timeout=10)["type"] == "subscribe"  # the subscription is in place
            ws_url = second.url.replace("http://", "ws://") + f"/api/matches/{match}/events"
            with connect(ws_url, open_timeout=60) as stream:
                seen = [json.loads(stream.recv(timeout=60)) for _ in range(state["last_seq"] + 1)]
                assert [event["seq"] for event in seen] == list(range(state["last_seq"] + 1))
                players = {"alice": alice, "bob": bob}
                mover = players[state["players"][state["to_act"]]]
                if mover is bob:  # let alice act on the first server: a second move by each side
                    state = bob.act(match, action="play", play=state["legal"][0])
                    assert json.loads(stream.recv(timeout=60))["kind"] == "play"
                    state = alice.act(match, action="roll")
                    assert json.loads(stream.recv(timeout=60))["kind"] == "roll"
                else:
                    state = alice.act(match, action="play", play=state["legal"][0])
                    assert json.loads(stream.recv(timeout=60))["kind"] == "play"
                # the first server told the others through Redis
                published: list[bytes] = []
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and not any(p.startswith(f"{match}:".encode()) for p in published):
                    message = listener.get_message(timeout=1)
                    if message and message["type"] == "message":
                        published.append(message["data"])
                assert any(p.startswith(f"{match}:".encode()) for p in published)
            final = play_out({"alice": alice, "bob": bob}, match, random.Random(4))
            assert final["status"] == "finished"
            assert _events(bob.match(match, history=True)["history"]) == _events(final["history"])
        finally:
            first.stop()
            second.stop()


def test_bots_think_in_worker_processes_and_play_a_match_to_the_end(tmp_path):
    with ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", "--bot-workers", "2", log=tmp_path / "server.log") as server:
        http = httpx.Client(base_url=server.url, timeout=120)
        alice = Client(http, "alice").register()
        match = alice.challenge("bot:nn:1", length=1)["id"]
        children = list(open(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read().split())
        assert len(children) >= 2  # the worker pool: processes, not the server's event loop
        final = play_out({"alice": alice}, match, random.Random(6))
        assert final["status"] == "finished"
        bot_plays = [e for e in final["history"] if e["color"] == "black" and e["kind"] == "play"]
        assert bot_plays and http.get("/api/health").status_code == 200


def test_without_redis_two_servers_on_postgresql_tell_each_other_by_listen_notify(tmp_path):
    import psycopg
    from websockets.sync.client import connect

    with database("postgresql", tmp_path) as url:
        first = ServerProcess(url, log=tmp_path / "first.log").start()
        second = ServerProcess(url, log=tmp_path / "second.log").start()
        try:
            alice = Client(httpx.Client(base_url=first.url, timeout=60), "alice").register()
            bob = Client(httpx.Client(base_url=second.url, timeout=60), "bob").register()
            match = alice.challenge("bob", length=1)["id"]
            state = bob.accept(match)
            listener = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)
            listener.execute("LISTEN gammon_matches")
            ws_url = second.url.replace("http://", "ws://") + f"/api/matches/{match}/events"
            with connect(ws_url, open_timeout=60) as stream:
                for _ in range(state["last_seq"] + 1):
                    stream.recv(timeout=60)
                players = {"alice": alice, "bob": bob}
                mover = players[state["players"][state["to_act"]]]
                mover.act(match, action="play", play=state["legal"][0])
                assert json.loads(stream.recv(timeout=60))["kind"] == "play"
            payloads = [notice.payload for notice in listener.notifies(timeout=30, stop_after=1)]
            assert payloads == [f"{match}:{state['last_seq'] + 1}"]  # the match and its last event, sent at commit
            listener.close()
        finally:
            first.stop()
            second.stop()


def _clock_of(view: dict) -> tuple[str, float, dt.datetime]:
    """The side whose time runs, its reserve as of the turn's start, and that start."""
    clock = view["clock"]
    return clock["running"], clock["reserve"][clock["running"]], dt.datetime.fromisoformat(clock["since"].removesuffix("Z"))


def _present(client: Client, match: int) -> dict:
    """The match fetched with the player's log-in: they are present, their turn's time runs."""
    answer = client.http.get(f"/api/matches/{match}", headers=client.headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_clock_does_not_run_while_the_server_is_down(kind, tmp_path):
    """kill -9, longer down than the whole reserve, start again: the player to act has their reserve."""
    with database(kind, tmp_path) as url:
        server = ServerProcess(url, log=tmp_path / "server.log").start()
        try:
            http = httpx.Client(base_url=server.url, timeout=60)
            alice, bob = Client(http, "alice").register(), Client(http, "bob").register()
            match = alice.challenge("bob", length=3, clock={"delay": 0, "reserve": 15}, rated=False)["id"]
            started = bob.accept(match)
            mover = {"white": alice, "black": bob}[started["to_act"]]
            side, reserve, since = _clock_of(_present(mover, match))
            server.kill()
            killed = time.time()
            time.sleep(20)  # down for longer than the reserve
            restarting = time.time()
            server.port = 0  # a port of its own again: in 20 s another process may have taken the old one
            server.start()
            mover.http = httpx.Client(base_url=server.url, timeout=60)
            view = mover.match(match)
            assert view["status"] == "playing", view
            again, left, resumed = _clock_of(view)
            assert (again, left) == (side, reserve)  # the reserve as it was at the last durable event
            assert (resumed - since).total_seconds() >= restarting - killed - 1  # the outage is not counted
            # and the clock runs again from there: the player who never acts loses on time in the end
            final = wait_for(lambda: (state := mover.match(match, history=True))["status"] == "finished" and state,
                             "the time-out")
            assert final["history"][-2]["kind"] == "timeout" and final["winner"] != mover.name
        finally:
            server.stop()


def test_a_clock_does_not_run_while_the_server_is_frozen(tmp_path):
    """The whole process stopped (SIGSTOP) longer than the reserve, an action sent meanwhile: when the
    server thaws, the action is played, not the player ended for the time the server lost."""
    with ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", log=tmp_path / "server.log") as server:
        http = httpx.Client(base_url=server.url, timeout=120)
        alice, bob = Client(http, "alice").register(), Client(http, "bob").register()
        match = alice.challenge("bob", length=3, clock={"delay": 0, "reserve": 20}, rated=False)["id"]
        started = bob.accept(match)
        mover = {"white": alice, "black": bob}[started["to_act"]]
        state = _present(mover, match)
        answers: list = []
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            # on a connection of its own: one kept alive from before would be closed as idle on thawing
            sender = threading.Thread(target=lambda: answers.append(httpx.post(
                f"{server.url}/api/matches/{match}/actions", headers=mover.headers, timeout=120,
                json={"action": "play", "play": state["legal"][0], "version": state["version"]})))
            sender.start()
            time.sleep(25)  # frozen for longer than the reserve, the action waiting at the door
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        sender.join(120)
        assert answers and answers[0].status_code == 200, answers
        played = answers[0].json()
        assert played["status"] == "playing" and [event["kind"] for event in played["events"]][:1] == ["play"]
        assert played["clock"]["reserve"][state["to_act"]] > 0
