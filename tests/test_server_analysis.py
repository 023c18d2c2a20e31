"""Ready before the first player, and analysis after the match: a real ``gammon serve`` process.

No timing is asserted (a test must not depend on the machine's speed): the server must say it is
preparing the bots before it gives its address, a bot must then move, and a finished match (and an
uploaded record) must be judged, kept across a restart, and shown as ``gammon analyse --html`` shows it.
"""

from __future__ import annotations

import random
import re
import sqlite3
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest

from gammon.analysis import RATINGS
from server_support import Client, ServerProcess, play_out, wait_for

RECORDS = Path(__file__).parent / "records"
LADDER = {label for _, label in RATINGS} | {"Awful!"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("analysis")


@pytest.fixture(scope="module")
def server(folder: Path) -> Any:
    with ServerProcess(f"sqlite:///{folder / 'server.db'}", "--hint-player", "pubeval", log=folder / "server.log",
                       env={"GAMMON_LIMIT_ANALYSES": "4"}) as running:
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
