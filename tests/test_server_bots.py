"""Bots at the server's table under every rule variant, and bots that fail (issue 36, item 8):
every offered bot plays two-move doubles and nackgammon to the end; a bot whose decision fails
(an error, an illegal play, no answer in time) gets a random legal play made for it, told as such,
and the match goes on; what cannot play a variant is refused before the match starts."""

from __future__ import annotations

import logging
import random
import re
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gammon.match import PlayerAction
from gammon.play import Play
from gammon.players.decisions import Decision
from gammon.server import seats
from gammon.server.app import create_app
from gammon.server.settings import Limits, Settings
from server_support import Client, choose, database

TWO_MOVES = "two-move-doubles"
BOTH = "nackgammon,two-move-doubles"


def _app(url: str, **settings: Any) -> TestClient:
    values: dict[str, Any] = {"bot_workers": 1, "hint_player": "pubeval",
                              "limits": Limits(provisional_matches=0, challenges_per_user=1000), **settings}
    return TestClient(create_app(Settings(db_url=url, **values)))


@pytest.fixture(params=["sqlite", "postgresql"])
def http(request, tmp_path):
    with database(request.param, tmp_path) as url, _app(url) as client:
        yield client


@pytest.fixture
def sqlite_http(tmp_path):
    with _app(f"sqlite:///{tmp_path / 'server.db'}") as client:
        yield client


def _challenge(player: Client, bot: str, variant: str, length: int = 1, **options: Any) -> dict[str, Any]:
    made = player.http.post("/api/matches", headers=player.headers,
                            json={"opponent": bot, "length": length, "options": {"variant": variant, **options}})
    assert made.status_code == 201, made.text
    return made.json()


def _play_all(player: Client, matches: list[int], rng: random.Random, limit: float = 1500.0) -> dict[int, dict]:
    """Play ``player``'s side of every match by random legal actions, the bots theirs, to the end;
    a match that stops moving while a bot is to act fails the test (a hang), whatever the machine's speed."""
    finished: dict[int, dict] = {}
    deadline = time.monotonic() + limit
    while len(finished) < len(matches):
        assert time.monotonic() < deadline, f"matches {sorted(set(matches) - set(finished))} did not end in {limit} s"
        moved = False
        for match_id in matches:
            if match_id in finished:
                continue
            state = player.match(match_id)
            if state["status"] != "playing":
                finished[match_id] = player.match(match_id, history=True)
                continue
            if state["players"][state["to_act"]] != player.name:
                continue  # the bot is thinking
            answer = player.post(match_id, version=state["version"], **choose(state, rng))
            assert answer.status_code in (200, 409), answer.text
            moved = True
        if not moved:
            time.sleep(0.05)
    return finished


def _doubles_played(history: list[dict], color: str) -> list[str]:
    """The plays ``color`` made of a double, as recorded."""
    plays, dice = [], None
    for event in history:
        if event["kind"] in ("roll", "opening"):
            dice = event["data"]["dice"]
        elif event["kind"] == "play":
            if event["color"] == color and dice is not None and dice[0] == dice[1]:
                plays.append(event["data"]["play"])
            dice = None
    return plays


def test_every_offered_bot_plays_two_move_doubles_and_nackgammon_to_the_end(http):
    """Each bot the lobby offers (every net level and depth) finishes a 1-point match of two-move
    doubles and one of nackgammon with two-move doubles, by itself: no play of a double has more
    than two moves, and the server never had to play for it."""
    (alice,) = [Client(http, "alice").register()]
    bots = [bot["name"] for bot in http.get("/api/bots").json()]
    assert {"bot:random", "bot:simple", "bot:pubeval", "bot:nn", "bot:nn:1", "bot:nn:2"} <= set(bots)
    matches = {_challenge(alice, bot, variant)["id"]: (bot, variant) for bot in bots for variant in (TWO_MOVES, BOTH)}
    finished = _play_all(alice, list(matches), random.Random(36))
    doubles = 0
    for match_id, view in finished.items():
        bot, variant = matches[match_id]
        assert view["status"] == "finished", (bot, variant, view["status"])
        assert view["options"]["variant"] == variant
        history = view["history"]
        assert not [e for e in history if e["data"].get("fallback")], (bot, variant)  # the bot chose every play
        played = _doubles_played(history, "black")
        assert all(len(play.split()) <= 2 for play in played), (bot, variant, played)
        doubles += len(played)
    assert doubles > 0  # some bot met a double and played it as two moves


def test_a_bot_whose_thinking_fails_gets_a_random_legal_play_and_the_match_goes_on(http, monkeypatch, caplog):
    caplog.set_level(logging.WARNING, "gammon.server")

    def broken(turn: seats.Turn) -> Decision:
        raise RuntimeError("the evaluator fell over")

    monkeypatch.setattr(seats, "think", broken)
    (alice,) = [Client(http, "alice").register()]
    match = _challenge(alice, "bot:nn", TWO_MOVES)
    view = _play_all(alice, [match["id"]], random.Random(1))[match["id"]]
    assert view["status"] == "finished"
    bot_plays = [e for e in view["history"] if e["kind"] == "play" and e["color"] == "black" and e["data"]["play"]]
    assert bot_plays and all(e["data"]["fallback"] and e["data"]["automatic"] for e in bot_plays)
    assert all("a random legal play made for bot:nn: its own choice failed" in e["description"] for e in bot_plays)
    assert all(len(e["data"]["play"].split()) <= 2 for e in bot_plays)
    assert "the evaluator fell over" in caplog.text and "plays the random legal play" in caplog.text


def test_a_bot_that_plays_illegally_or_answers_too_late_gets_a_random_legal_play(sqlite_http, monkeypatch, caplog):
    """A four-move play of a double under two-move doubles (the old bots' fault), garbage, and no
    answer within the bound (a hung worker) are each replaced, and said so."""
    caplog.set_level(logging.WARNING, "gammon.server")
    monkeypatch.setattr(seats, "THINK_SECONDS", 2.0)
    real = seats.think
    turns = {"n": 0}
    release = threading.Event()

    def unreliable(turn: seats.Turn) -> Decision:
        turns["n"] += 1
        state = turn.state
        if state.dice is None:
            return real(turn)
        kind = turns["n"] % 3
        if kind == 0:
            release.wait(5)  # longer than THINK_SECONDS: the server stops waiting
            return real(turn)
        if kind == 1:
            four = state.position.legal_plays(*state.dice)[0]  # by the standard game's rule
            return Decision(PlayerAction.PLAY, four)
        return Decision(PlayerAction.PLAY, Play.parse("24/1"))

    monkeypatch.setattr(seats, "think", unreliable)
    (alice,) = [Client(sqlite_http, "alice").register()]
    match = _challenge(alice, "bot:pubeval", TWO_MOVES)
    try:
        view = _play_all(alice, [match["id"]], random.Random(2))[match["id"]]
    finally:
        release.set()
    assert view["status"] == "finished"
    history = view["history"]
    assert all(len(play.split()) <= 2 for play in _doubles_played(history, "black"))
    assert any(e["kind"] == "play" and e["data"]["fallback"] for e in history)
    assert "no decision within 2 s" in caplog.text
    assert re.search(r"it chose \S.*which is not a legal play", caplog.text)


def test_a_bot_whose_actions_the_service_keeps_refusing_gets_a_random_legal_play(sqlite_http, monkeypatch, caplog):
    """Past the server's own check (here switched off), :data:`seats.REFUSALS` refusals in a row
    and the server plays for the bot: the bound holds even where the check and the referee disagree."""
    caplog.set_level(logging.WARNING, "gammon.server")
    real = seats.think

    def four_moves(turn: seats.Turn) -> Decision:
        state = turn.state
        if state.dice is None or state.dice[0] != state.dice[1]:
            return real(turn)
        return Decision(PlayerAction.PLAY, state.position.legal_plays(*state.dice)[0])  # by the standard game

    monkeypatch.setattr(seats, "think", four_moves)
    monkeypatch.setattr(seats, "illegal", lambda decision, match: None)
    (alice,) = [Client(sqlite_http, "alice").register()]
    matches = [_challenge(alice, "bot:pubeval", TWO_MOVES)["id"] for _ in range(3)]
    finished = _play_all(alice, matches, random.Random(3))
    fallbacks = [e for view in finished.values() for e in view["history"] if e["data"].get("fallback")]
    assert all(view["status"] == "finished" for view in finished.values())
    assert fallbacks and all(len(e["data"]["play"].split()) <= 2 for e in fallbacks)
    assert caplog.text.count("refused") >= seats.REFUSALS * len(fallbacks)
    assert f"its last {seats.REFUSALS} actions were refused" in caplog.text


def test_what_cannot_play_a_variant_is_refused_before_the_match(tmp_path):
    with _app(f"sqlite:///{tmp_path / 'server.db'}", external_bots=("gnubg:0",), hint_player="gnubg:0") as http:
        alice = Client(http, "alice").register()
        refused = http.post("/api/matches", headers=alice.headers,
                            json={"opponent": "bot:gnubg:0", "length": 1, "options": {"variant": TWO_MOVES}})
        assert refused.status_code == 422, refused.text
        assert refused.json()["detail"].startswith("opponent: ") and "standard game only" in refused.json()["detail"]
        # a bot that would hold the shared workers for minutes a move is refused in any variant
        for bot, variant in (("bot:rollout:2:pubeval", TWO_MOVES), ("bot:rollout:100000", "standard"),
                             ("bot:nn:3", "standard")):
            refused = http.post("/api/matches", headers=alice.headers,
                                json={"opponent": bot, "length": 1, "options": {"variant": variant}})
            assert refused.status_code == 422, refused.text
            assert refused.json()["detail"].startswith("opponent: ") and "thinks too long" in refused.json()["detail"]
        http.post("/pbm", content="register carol christmas99")
        by_mail = http.post("/pbm", content="challenge carol bot:rollout:2 christmas99 -twomovedoubles")
        assert by_mail.status_code == 422 and "thinks too long" in by_mail.text, by_mail.text
        # a match of people may ask for hints: an engine that cannot play the rules is refused, not asked
        bob = Client(http, "bob").register()
        match = alice.challenge("bob", length=1, variant=TWO_MOVES, hints=True, cube_hints=True)
        state = bob.accept(match["id"])
        mover = {"alice": alice, "bob": bob}[state["players"][state["to_act"]]]
        for path in ("hint", "cube_hint"):
            answer = http.get(f"/api/matches/{match['id']}/{path}", headers=mover.headers)
            assert answer.status_code in (422,), answer.text
            assert "standard game only" in answer.json()["detail"] or "cube hint is before" in answer.json()["detail"]


def test_hints_rank_the_plays_of_the_variant(sqlite_http):
    alice, bob = Client(sqlite_http, "alice").register(), Client(sqlite_http, "bob").register()
    match = alice.challenge("bob", length=3, variant=TWO_MOVES, hints=True)
    state = bob.accept(match["id"])
    players = {"alice": alice, "bob": bob}
    rng = random.Random(8)
    seen = 0
    while state["status"] == "playing" and seen < 3:
        mover = players[state["players"][state["to_act"]]]
        if "play" in state["actions"]:
            hints = sqlite_http.get(f"/api/matches/{match['id']}/hint", headers=mover.headers)
            assert hints.status_code == 200, hints.text
            ranked = {item["play"] for item in hints.json()["plays"]}
            assert ranked == set(state["legal"]), (state["dice"], ranked ^ set(state["legal"]))
            seen += state["dice"][0] == state["dice"][1]
        state = mover.act(match["id"], version=state["version"], **choose(state, rng))
    assert seen  # doubles met, and ranked as two moves


TURN = re.compile(r"^Move (\d+): (\S+) \(([OX])\) to play (\d)-(\d):$", re.M)


def test_a_two_move_doubles_match_by_mail_against_a_bot_is_played_to_the_end(tmp_path):
    """Play by mail reads a double's two moves by the match's rules, and the bot replies by them."""
    settings = {"limits": Limits(commands_per_address=100_000, provisional_matches=0)}
    with _app(f"sqlite:///{tmp_path / 'server.db'}", **settings) as http:

        def say(line: str) -> tuple[str, bool]:
            answer = http.post("/pbm", content=line)
            assert answer.status_code in (200, 422), answer.text
            return answer.text.removesuffix("\n.\n"), answer.status_code == 200

        say("register alice wonderland1")
        answer, done = say("challenge alice bot:pubeval wonderland1 -match 1 -twomovedoubles")
        assert done, answer
        board = int(re.search(r"Board (\d+):", answer).group(1))
        rng = random.Random(5)
        my_doubles = 0
        for _ in range(200):
            if "The match is over" in answer:
                break
            found = TURN.search(answer)
            assert found and found.group(2) == "alice", answer  # the bot has replied in the same answer
            listed = say(f"move {board} alice wonderland1 ?")[0].splitlines()[1:]
            move = rng.choice(listed).strip()
            if found.group(4) == found.group(5) and move != "(no move)":
                my_doubles += 1
                assert move.count("-") <= 2 and "3(" not in move and "4(" not in move, move
            answer, done = say(f"move {board} alice wonderland1 {move}#{found.group(1)}")
            assert done, answer
        view = http.get(f"/api/matches/{board}?history=all").json()
        assert view["status"] == "finished" and view["options"]["variant"] == TWO_MOVES
        assert my_doubles and all(len(play.split()) <= 2 for play in _doubles_played(view["history"], "black"))
