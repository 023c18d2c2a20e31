"""Ready before the first player, and analysis after the match: a real ``gammon serve`` process.

No timing is asserted (a test must not depend on the machine's speed): the server must say it is
preparing the bots before it gives its address, a bot must then move, and a finished match (and an
uploaded record) must be judged, kept across a restart, and shown as ``gammon analyse --html`` shows it.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import socket
import sqlite3
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest

from gammon.analysis import RATINGS
from server_support import Client, ServerProcess, database, long_record, play_out, wait_for

RECORDS = Path(__file__).parent / "records"
LADDER = {label for _, label in RATINGS} | {"Awful!"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("analysis")


@pytest.fixture(scope="module")
def server(folder: Path) -> Any:
    with ServerProcess(f"sqlite:///{folder / 'server.db'}", "--hint-player", "pubeval", log=folder / "server.log",
                       env={"GAMMON_LIMIT_ANALYSES": "4", "GAMMON_LIMIT_ANALYSES_WAITING": "10"}) as running:
        yield running


@pytest.fixture(scope="module")
def http(server: ServerProcess) -> Any:
    with httpx.Client(base_url=server.url, timeout=120) as client:
        yield client


@pytest.fixture(scope="module")
def finished(http: httpx.Client) -> tuple[Client, int]:
    """A 1-point match against a bot, played to its end."""
    alice = Client(http, "alice").register()
    match = alice.challenge("bot:pubeval", length=1)["id"]
    play_out({"alice": alice}, match, random.Random(7))
    return alice, match


def _done(http: httpx.Client, path: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    def answer() -> dict[str, Any] | None:
        got = http.get(path, headers=headers or {})
        assert got.status_code == 200, got.text
        body: dict[str, Any] = got.json()
        assert body["status"] in ("queued", "running", "done", "failed"), body
        assert body["status"] != "failed", body
        return body if body["status"] == "done" else None

    return wait_for(answer, f"analysis at {path}", timeout=600)


def test_the_server_says_it_prepares_the_bots_before_its_address_and_a_bot_then_moves(
        server: ServerProcess, finished: tuple[Client, int], http: httpx.Client) -> None:
    output = server.output()
    preparing = output.find("gammon serve: preparing the bots (compiling, bear-off tables)... done in ")
    address = output.find("gammon serve: http://")
    assert 0 <= preparing < address, output
    _, match = finished
    history = http.get(f"/api/matches/{match}?history=all").json()["history"]
    assert any(event["kind"] == "play" and event["color"] == "black" for event in history)  # the bot's


def test_a_finished_match_is_analysed_once_with_its_players_and_decisions(
        http: httpx.Client, finished: tuple[Client, int]) -> None:
    alice, match = finished
    assert http.get(f"/api/matches/{match}/analysis").status_code == 404
    with httpx.Client(base_url=http.base_url) as stranger:  # no log-in, not even a cookie
        assert stranger.post(f"/api/matches/{match}/analysis").status_code == 401
    first = http.post(f"/api/matches/{match}/analysis", headers=alice.headers)
    assert first.status_code == 202, first.text
    assert first.json()["status"] in ("queued", "running", "done")
    again = http.post(f"/api/matches/{match}/analysis", headers=alice.headers)  # idempotent: the same one
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    done = _done(http, f"/api/matches/{match}/analysis")
    assert [player["name"] for player in done["players"]] == ["alice", "bot:pubeval"]
    for player in done["players"]:
        assert player["rating_ladder"] in LADDER
        assert player["error_rate"] >= 0 and player["errors"] >= 0 and player["blunders"] >= 0
    assert done["decisions"]
    for decision in done["decisions"]:
        assert decision["kind"] in ("checker", "cube") and decision["player"] in ("alice", "bot:pubeval")
        assert decision["error"] >= 0 and decision["mark"] in (None, "doubtful", "error", "blunder")
        assert decision["options"] and decision["best"] and decision["xgid"].startswith("XGID=")
    marked = sum(d["mark"] == "blunder" for d in done["decisions"] if d["player"] == "alice")
    assert done["players"][0]["blunders"] == marked


class _Page(HTMLParser):
    """The tags of a page, its table headers without a scope, and each picture's role and title."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.th_without_scope = 0
        self.pictures: list[dict[str, Any]] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = dict(attrs)
        if tag == "th" and "scope" not in values:
            self.th_without_scope += 1
        if tag == "svg":
            self._depth += 1
            if self._depth == 1:
                self.pictures.append({"role": values.get("role"), "title": False})
        if tag == "title" and self._depth == 1:
            self.pictures[-1]["title"] = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._depth -= 1


def test_the_report_is_the_analyse_page_without_script_and_readable(
        http: httpx.Client, finished: tuple[Client, int]) -> None:
    _, match = finished
    _done(http, f"/api/matches/{match}/analysis")
    page = http.get(f"/api/matches/{match}/analysis.html")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    text = page.text
    assert "<script" not in text.lower() and not re.search(r"<[^>]+\son[a-z]+=", text)  # nothing to run
    parsed = _Page()
    parsed.feed(text)
    assert parsed.tags.count("h1") == 1 and "h2" in parsed.tags and "h3" in parsed.tags
    assert parsed.th_without_scope == 0
    assert parsed.pictures  # every board and the course of the match say what they show
    assert all(picture == {"role": "img", "title": True} for picture in parsed.pictures)
    assert "alice" in text and "Luck-adjusted result" in text
    assert page.headers["content-encoding"] == "gzip"  # 6 MB of pictures for a 7-point match: sent packed
    plain = http.get(f"/api/matches/{match}/analysis.html", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.text == text


def test_an_uploaded_record_is_analysed_and_kept_to_its_uploader(http: httpx.Client) -> None:
    carol = Client(http, "carol").register()
    text = (RECORDS / "match3.mat").read_text()
    made = http.post("/api/analysis", content=text, headers={**carol.headers, "Content-Type": "text/plain"})
    assert made.status_code == 202, made.text
    number = made.json()["id"]
    done = _done(http, f"/api/analysis/{number}", carol.headers)
    assert len(done["players"]) == 2 and done["decisions"] and done["match"] is None
    page = http.get(f"/api/analysis/{number}.html", headers=carol.headers)
    assert page.status_code == 200 and "<h1>" in page.text
    dave = Client(http, "dave").register()
    assert http.get(f"/api/analysis/{number}", headers=dave.headers).status_code == 404


@pytest.mark.parametrize(("body", "named"), [
    (" 3 point match\n\n Game 1\n a : 0     b : 0\n  1) 31: 8/5 6/1\n", "game 1, move 1"),
    ("this is not a match", "point match"),
    ("", "empty"),
    (" 3 point match\n\n Game 1\n a : 0     b : 0\n", "record:"),
])
def test_a_bad_upload_is_refused_naming_what_is_wrong(http: httpx.Client, body: str, named: str) -> None:
    erin = Client(http, f"erin{abs(hash(body)) % 10_000}").register()
    answer = http.post("/api/analysis", content=body, headers={**erin.headers, "Content-Type": "text/plain"})
    assert answer.status_code == 422, answer.text
    assert named in answer.json()["detail"]


def test_a_match_still_playing_is_not_analysed_and_analyses_are_limited(http: httpx.Client) -> None:
    frank = Client(http, "frank").register()
    playing = frank.challenge("bot:random", length=3)["id"]
    answer = http.post(f"/api/matches/{playing}/analysis", headers=frank.headers)
    assert answer.status_code == 422 and "finished" in answer.json()["detail"]
    text = (RECORDS / "money.mat").read_text()
    codes = [http.post("/api/analysis", content=text, headers={**frank.headers, "Content-Type": "text/plain"}).status_code
             for _ in range(5)]
    assert codes == [202, 202, 202, 202, 429]  # GAMMON_LIMIT_ANALYSES=4


def test_a_restart_during_an_analysis_queues_it_again_or_fails_it(
        server: ServerProcess, folder: Path, http: httpx.Client, finished: tuple[Client, int]) -> None:
    _, match = finished
    first = _done(http, f"/api/matches/{match}/analysis")
    server.stop()
    with sqlite3.connect(folder / "server.db") as db:  # as if the server had stopped in the middle of them
        db.execute("UPDATE analyses SET status = 'running', result = NULL, html = NULL, attempts = 1 WHERE id = ?",
                   (first["id"],))
        db.execute("UPDATE analyses SET status = 'running', attempts = 2 WHERE match_id IS NULL")
    server.start()
    again = _done(http, f"/api/matches/{match}/analysis")
    assert again["id"] == first["id"] and again["players"] == first["players"]
    with sqlite3.connect(folder / "server.db") as db:
        statuses = {status for (status,) in db.execute("SELECT status FROM analyses WHERE match_id IS NULL")}
    assert statuses == {"failed"}
    with sqlite3.connect(folder / "server.db") as db:
        (uploaded,) = db.execute("SELECT min(id) FROM analyses WHERE match_id IS NULL").fetchone()
    carol = Client(http, "carol").log_in()
    mine = http.get(f"/api/analysis/{uploaded}", headers=carol.headers).json()
    assert mine["status"] == "failed" and "stopped" in mine["error"]
    with sqlite3.connect(folder / "server.db") as db:  # a match's failed analysis is tried again when asked
        db.execute("UPDATE analyses SET status = 'failed', error = 'it broke' WHERE id = ?", (first["id"],))
    assert http.get(f"/api/matches/{match}/analysis").json()["error"] == "it broke"
    alice = Client(http, "alice").log_in()
    assert http.post(f"/api/matches/{match}/analysis", headers=alice.headers).status_code == 202
    assert _done(http, f"/api/matches/{match}/analysis")["players"] == first["players"]


def test_preparing_is_done_once_a_process_and_offers_no_external_engine(bearoff_cache: Path) -> None:
    from gammon.server.warmup import offered, prepare, prepare_worker

    assert offered("gnubg:0", ("gnubg:1", "nn:1")) == ("random", "simple", "pubeval", "nn", "nn:1", "nn:2")
    prepare(["random"])
    assert prepare(["random"]) == 0.0  # a forked worker inherits it: nothing left to do
    prepare_worker(("random",))


# -- a fair queue, budgets that kill, leftovers known at once ---------------------------------------------
def _children(pid: int) -> set[int]:
    """The processes ``pid`` started that still run (its workers)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(stat[1]) == pid and stat[0] != "Z":
                found.add(int(entry.name))
    return found


def _upload(http: httpx.Client, who: Client, text: str) -> httpx.Response:
    return http.post("/api/analysis", content=text.encode(), headers={**who.headers, "Content-Type": "text/plain"})


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the server's workers from /proc")
def test_an_analysis_past_its_budget_is_killed_and_the_queue_is_fair_and_bounded_per_person(tmp_path: Path) -> None:
    """A long match's analysis (minutes here, tens of seconds on a fast machine) against a 3 s budget:
    failed, its process gone and another in its place; meanwhile its owner's third is refused and
    another person's, asked for after her second, is judged before it."""
    long = long_record()
    short = (RECORDS / "money.mat").read_text()
    env = {"GAMMON_LIMIT_ANALYSIS_SECONDS": "3", "GAMMON_LIMIT_ANALYSES_WAITING": "2"}
    with ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", log=tmp_path / "server.log", env=env) as server, \
            httpx.Client(base_url=server.url, timeout=120) as http:
        assert server.process is not None
        workers = _children(server.process.pid)
        gail, hank = Client(http, "gail").register(), Client(http, "hank").register()
        first = _upload(http, gail, long)  # read within its budget, judged past it (a long match, 3 s)
        assert first.status_code == 202, first.text
        second = _upload(http, gail, short)
        assert second.status_code == 202, second.text
        third = _upload(http, gail, short)  # two of hers are queued or running already
        assert third.status_code == 429 and "at most 2 analyses of yours" in third.json()["detail"], third.text
        other = _upload(http, hank, short)  # asked after her second, judged before it: his turn comes first
        assert other.status_code == 202, other.text

        def ended(number: int, who: Client) -> dict[str, Any] | None:
            body: dict[str, Any] = http.get(f"/api/analysis/{number}", headers=who.headers).json()
            return body if body["status"] in ("done", "failed") else None

        killed = wait_for(lambda: ended(first.json()["id"], gail), "the long analysis's end", timeout=300)
        assert killed["status"] == "failed" and killed["error"] == "it took longer than 3 s", killed
        assert wait_for(lambda: ended(other.json()["id"], hank), "his analysis")["status"] == "done"
        assert wait_for(lambda: ended(second.json()["id"], gail), "her second")["status"] == "done"
        now = _children(server.process.pid)
        assert len(workers - now) == 1 and len(now - workers) == 1, (workers, now)  # the analyst killed, replaced
    with sqlite3.connect(tmp_path / "server.db") as db:
        started = dict(db.execute("SELECT id, started FROM analyses"))
    assert started[other.json()["id"]] < started[second.json()["id"]]


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_the_next_analysis_is_of_the_person_served_least_recently(kind: str, tmp_path: Path) -> None:
    from sqlalchemy import insert, update

    from gammon.server.analyses import DONE, QUEUED, RUNNING, _claim
    from gammon.server.database import WRITE, migrate, open_database
    from gammon.server.models import ANALYSES, USERS

    with database(kind, tmp_path) as url:
        engine = open_database(url)
        try:
            migrate(engine)
            with engine.connect().execution_options(**{WRITE: True}) as connection, connection.begin():
                for user in ("ann", "ben", "cat"):
                    connection.execute(insert(USERS).values(name=user, is_bot=False, rating=1500.0, experience=0))
                ids = dict(connection.execute(USERS.select().with_only_columns(USERS.c.name, USERS.c.id)).all())
                asked = ["ann", "ann", "ann", "ben", "ann", "cat"]  # ann asks for four, then the others
                for who in asked:
                    connection.execute(insert(ANALYSES).values(requested_by=ids[who], status=QUEUED, analyst="nn:0",
                                                                record="-", attempts=0, created=dt.datetime.now()))
            order = []
            for _ in asked:  # one analyst: each runs to its end before the next is claimed
                with engine.connect().execution_options(**{WRITE: True}) as connection, connection.begin():
                    claimed = _claim(connection, "here")
                    assert claimed is not None
                    order.append(claimed[0])
                    assert connection.execute(ANALYSES.select().where(ANALYSES.c.id == claimed[0])).one().status == RUNNING
                    connection.execute(update(ANALYSES).where(ANALYSES.c.id == claimed[0]).values(status=DONE))
            # round robin: ben and cat, who asked after ann's four, each wait for one of hers at most
            assert order == [1, 4, 6, 2, 3, 5]
        finally:
            engine.dispose()


def test_a_server_knows_which_running_analyses_were_left_by_a_server_that_is_gone() -> None:
    import os
    import socket
    import subprocess

    from gammon.server.analyses import gone, this_process

    me = this_process()
    host, boot, pid, started = me.split("/")
    assert host == socket.gethostname()[:100] and int(pid) == os.getpid()
    assert not gone(me)
    ended = subprocess.run(["true"], check=True)  # a process number that is free again
    dead = subprocess.Popen(["true"])
    dead.wait()
    assert gone(f"{host}/{boot}/{dead.pid}/1")
    assert gone(f"{host}/{boot}/{pid}/{int(started or 0) + 1}")  # this number, another process
    assert gone(f"{host}/another-boot/{pid}/{started}")  # the machine started again since
    assert not gone(f"elsewhere/{boot}/{dead.pid}/1")  # another machine's: left to the stale rule
    assert ended.returncode == 0


def test_after_a_kill_9_on_postgresql_its_own_leftovers_are_queued_again_at_once(tmp_path: Path) -> None:
    import psycopg

    with database("postgresql", tmp_path) as url:
        server = ServerProcess(url, log=tmp_path / "server.log")
        with server, httpx.Client(base_url=server.url, timeout=120) as http:
            ivy = Client(http, "ivy").register()
            for _ in range(2):
                assert _upload(http, ivy, (RECORDS / "money.mat").read_text()).status_code == 202
            for number in (1, 2):
                _done(http, f"/api/analysis/{number}", ivy.headers)
        assert server.process is not None
        gone_runner = f"{socket.gethostname()[:100]}/{Path('/proc/sys/kernel/random/boot_id').read_text().strip()}/" \
                      f"{server.process.pid}/1"  # the server just stopped, as after a kill -9
        plain = url.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(plain, autocommit=True) as db:
            db.execute("UPDATE analyses SET status = 'running', result = NULL, html = NULL, attempts = 1, "
                       "started = now() AT TIME ZONE 'utc', runner = %s WHERE id = 1", (gone_runner,))
            db.execute("UPDATE analyses SET status = 'running', attempts = 1, started = now() AT TIME ZONE 'utc', "
                       "runner = 'another-machine/boot/1/1' WHERE id = 2")
        with server, httpx.Client(base_url=server.url, timeout=120) as http:
            ivy.http = http
            ivy.log_in()
            again = _done(http, "/api/analysis/1", ivy.headers)  # at once: not after the stale period
            assert again["players"]
            assert http.get("/api/analysis/2", headers=ivy.headers).json()["status"] == "running"  # another's
