"""The event loop never computes (issue 36): the worst a client can send, all at once, and health
and play still answer.

A real ``gammon serve`` on each database. While hostile uploads (the score line that made a
backtracking reader take minutes, and long legal records), many parallel reads of a long finished
match's ``record.mat`` and of its boards (``board?upto=``), and fetches of its report by clients
that take no gzip are all in flight, ``/api/health`` is asked every 0.2 s and a player acts in
another match. Every answer must come: health (which does nothing, so it waits only for the event
loop) each within :data:`HEALTH_BOUND` and half of them within a quarter of a second, an action
(real work on the loop and in the database) within :data:`ACTION_BOUND`. The issue asks for one
second; the bounds leave room for a two-core machine running a dozen other things, which slows
everything tenfold: measured there, health took at most 0.2 to 1 s and actions 0.5 to 1.4 s;
before, health took 17 to 58 s, or never came.
"""

from __future__ import annotations

import multiprocessing
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_support import Client, ServerProcess, database, long_record, wait_for

HEALTH_BOUND = 2.0  #: seconds a health check may take while the storm goes on
ACTION_BOUND = 3.0  #: seconds an action may take meanwhile
STORM = 25.0  #: seconds the storm lasts
HOSTILE = " 1 point match\n\n Game 1\n" + " " * 9600 + ":" + " " * 9600 + "1\n"  # the Critical body, 8 times


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
    env = {"GAMMON_LIMIT_ANALYSES": "10000", "GAMMON_LIMIT_ANALYSES_WAITING": "1000",
           "GAMMON_LIMIT_JOB_SECONDS": "10"}
    with database(request.param, tmp_path) as url, ServerProcess(url, log=tmp_path / "server.log", env=env) as running:
        yield running


def _finished_match(http: httpx.Client, length: int) -> int:
    """Two people play a match to its end by random legal plays, never doubling (one request an action)."""
    rng = random.Random(length)
    ann, ben = Client(http, "ann").register(), Client(http, "ben").register()
    match = ann.challenge("ben", length=length)["id"]
    state = ben.accept(match)
    people = {"ann": ann, "ben": ben}
    while state["status"] == "playing":
        actor = people[state["players"][state["to_act"]]]
        actions = state["actions"]
        if "play" in actions:
            body = {"action": "play", "play": rng.choice(state["legal"])}
        elif "take" in actions:
            body = {"action": "take"}
        elif "reject" in actions:
            body = {"action": "reject"}
        else:
            body = {"action": "roll"}
        state = actor.act(match, version=state["version"], **body)
    return match


class Storm:
    """Threads that send one kind of request again and again until told to stop, counting the
    answers; in a process of their own, so that the clients' own work does not slow the test's
    watch on health (the server is measured, not this process)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.kinds: list[tuple[str, Any, int]] = []
        context = multiprocessing.get_context("fork")
        self._stop = context.Event()
        self._ours, self._theirs = context.Pipe()
        self._process = context.Process(target=self._run, daemon=True)
        self.answers: Counter[tuple[str, int]] = Counter()
        self.problems: list[str] = []

    def add(self, what: str, send: Any, count: int) -> None:
        self.kinds.append((what, send, count))

    def _run(self) -> None:
        answers: Counter[tuple[str, int]] = Counter()
        problems: list[str] = []
        lock = threading.Lock()

        def loop(what: str, send: Any, seed: int) -> None:
            rng = random.Random(seed)
            with httpx.Client(base_url=self.url, timeout=300) as http:
                while not self._stop.is_set():
                    try:
                        status = send(http, rng)
                    except httpx.HTTPError as error:
                        with lock:
                            problems.append(f"{what}: {error!r}")
                        continue
                    with lock:
                        answers[what, status] += 1

        threads = [threading.Thread(target=loop, args=(what, send, n), daemon=True)
                   for what, send, count in self.kinds for n in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self._theirs.send((answers, problems))

    def __enter__(self) -> Storm:
        self._process.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._ours.poll(600):
            self.answers, self.problems = self._ours.recv()
        self._process.join(60)


def test_health_and_play_answer_while_the_worst_requests_run_in_parallel(server: ServerProcess) -> None:
    http = httpx.Client(base_url=server.url, timeout=300)
    match = _finished_match(http, 7)
    events = len(http.get(f"/api/matches/{match}?history=all").json()["history"])
    ann = Client(http, "ann").log_in()
    assert http.post(f"/api/matches/{match}/analysis", headers=ann.headers).status_code == 202
    wait_for(lambda: http.get(f"/api/matches/{match}/analysis").json()["status"] == "done", "the report", timeout=900)
    uploader = Client(http, "uploader").register()
    record = long_record(actions=2500)
    carl, dora = Client(http, "carl").register(), Client(http, "dora").register()
    playing = carl.challenge("dora", length=25)["id"]
    dora.accept(playing)

    def upload(client: httpx.Client, rng: random.Random) -> int:
        body = HOSTILE if rng.random() < 0.5 else record
        headers = {**uploader.headers, "Content-Type": "text/plain"}
        return client.post("/api/analysis", content=body.encode(), headers=headers).status_code

    def replayed(client: httpx.Client, rng: random.Random) -> int:
        if rng.random() < 0.3:
            return client.get(f"/api/matches/{match}/record.mat").status_code
        view = rng.choice(["white", "black"])
        return client.get(f"/api/matches/{match}/board?upto={rng.randrange(-1, events)}&view={view}").status_code

    def report(client: httpx.Client, rng: random.Random) -> int:
        with client.stream("GET", f"/api/matches/{match}/analysis.html", headers={"Accept-Encoding": "identity"}) as got:
            for _ in got.iter_raw():
                pass
            return got.status_code

    health: list[float] = []
    acted: list[float] = []
    storm = Storm(server.url)
    storm.add("upload", upload, 3)
    storm.add("replay", replayed, 10)
    storm.add("report", report, 5)
    with storm:
        deadline = time.monotonic() + STORM
        rng = random.Random(1)
        while time.monotonic() < deadline:
            started = time.monotonic()
            answer = http.get("/api/health")
            assert answer.status_code == 200, answer.text
            health.append(time.monotonic() - started)
            state = carl.match(playing)
            if state["status"] == "playing":
                actor = carl if state["players"][state["to_act"]] == "carl" else dora
                body = {"action": "play", "play": rng.choice(state["legal"])} if "play" in state["actions"] \
                    else {"action": "roll"}
                started = time.monotonic()
                actor.act(playing, version=state["version"], **body)
                acted.append(time.monotonic() - started)
            time.sleep(0.2)
    answers = dict(storm.answers)
    print(f"health: {len(health)} answers, max {max(health):.3f} s; actions: {len(acted)}, max {max(acted):.3f} s; {answers}")
    assert not storm.problems, storm.problems[:5]
    assert {what for what, _ in answers} == {"upload", "replay", "report"}, answers  # each kind was in flight
    assert {status for (_, status) in answers} <= {200, 202, 406, 422, 503}, answers
    assert answers.get(("upload", 422), 0) >= 1 and answers.get(("replay", 200), 0) >= 10, answers
    assert len(health) >= 20 and len(acted) >= 10, (len(health), len(acted))
    assert max(health) <= HEALTH_BOUND and max(acted) <= ACTION_BOUND, (sorted(health)[-5:], sorted(acted)[-5:], answers)
    assert sorted(health)[len(health) // 2] <= 0.25, sorted(health)
    assert http.get("/api/health").status_code == 200
