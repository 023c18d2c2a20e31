"""One story of a match, whatever the door: HTTP, play by mail and the bots' path write the same events.

The dice are made the same for every match here (the server's seed and the players' seeds
fixed), and every side plays by one script (the first legal play, never a double), so the
same match is played three times: by two people over HTTP, by two people by mail, and by a
person over HTTP against a bot whose turns the server plays. Their event rows must be equal,
kind by kind and field by field (only whether a play was made for a player may differ: by
mail the server makes forced plays by itself). And the terminal tells each event as the
server tells it: both are the one narrator.
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from gammon.cli.terminal import Settings, Terminal
from gammon.events import event_from_data
from gammon.match import PlayerAction
from gammon.narration import Narrator
from gammon.notation import pbm as pbm_notation
from gammon.players.decisions import Decision
from gammon.position import Color
from gammon.server import seats
from gammon.server.app import create_app
from gammon.server.matches import service as match_service
from gammon.server.settings import Limits
from gammon.server.settings import Settings as ServerSettings
from gammon.state import GameState
from server_support import Client, database

SERVER_SEED = bytes(range(32))
GAME_KINDS = ("opening", "roll", "play", "double", "take", "drop", "new_game", "game_over", "match_over")


def _script(state: dict) -> dict:
    """The one script every side plays by: the first legal play; roll; take; accept."""
    actions = state["actions"]
    if "play" in actions:
        return {"action": "play", "play": state["legal"][0]}
    for word in ("take", "accept", "roll"):
        if word in actions:
            return {"action": word}
    raise AssertionError(f"nothing to do in {actions}")


def _scripted_bot(turn: seats.Turn) -> Decision:
    """The bots' path, with the script for a mind: the server still plays the turn as a bot's."""
    state = turn.state
    if state.double_offered:
        return Decision(PlayerAction.TAKE)
    if state.resignation is not None:
        return Decision(PlayerAction.ACCEPT)
    if state.dice is None:
        return Decision(PlayerAction.ROLL)
    return Decision(PlayerAction.PLAY, state.position.legal_plays(*state.dice)[0])


@pytest.fixture(params=["sqlite", "postgresql"])
def http(request, tmp_path, monkeypatch):
    monkeypatch.setattr(match_service, "new_seed", lambda: SERVER_SEED)
    monkeypatch.setattr(seats, "think", _scripted_bot)  # one worker: a thread of this process runs it
    with database(request.param, tmp_path) as url:
        settings = ServerSettings(db_url=url, bot_workers=1, limits=Limits(commands_per_address=100_000))
        with TestClient(create_app(settings)) as client:
            yield client


def _game_events(history: list[dict]) -> list[tuple]:
    return [(e["kind"], e["game"], e["color"], e["action"], {k: v for k, v in e["data"].items() if k != "automatic"})
            for e in history if e["kind"] in GAME_KINDS]


def _by_http(http: TestClient) -> list[dict]:
    alice, bob = Client(http, "alice").register(), Client(http, "bob").register()
    match = http.post("/api/matches", json={"opponent": "bob", "length": 1},  # both seeds drawn, as by mail
                      headers=alice.headers).json()["id"]
    state = bob.accept(match)
    players = {"alice": alice, "bob": bob}
    while state["status"] == "playing":
        actor = players[state["players"][state["to_act"]]]
        state = actor.act(match, version=state["version"], **_script(state))
    return http.get(f"/api/matches/{match}?history=all", headers=alice.headers).json()["history"]  # told to alice


def _by_mail(http: TestClient) -> list[dict]:
    def say(line: str) -> str:
        answer = http.post("/pbm", content=line)
        assert answer.status_code == 200, answer.text
        return answer.text

    say("register carol christmas99\nregister dave deliver123")
    board = int(re.search(r"Board (\d+)", say("challenge carol dave christmas99 -match 1")).group(1))
    say(f"accept {board} dave deliver123")
    passwords = {"carol": "christmas99", "dave": "deliver123"}
    viewer = Client(http, "carol", "christmas99").log_in()
    for _ in range(2000):
        state = viewer.match(board)
        if state["status"] != "playing":
            return viewer.match(board, history=True)["history"]
        name = state["players"][state["to_act"]]
        step = _script(state)
        if step["action"] == "play":  # the API's legal list, in play by mail's own words
            text = f"move {board} {name} {passwords[name]} {_in_mail_words(http, board, name, step['play'])}"
        else:
            text = f"{step['action']} {board} {name} {passwords[name]}"
        say(text)
    raise AssertionError("the match by mail did not end")


def _in_mail_words(http: TestClient, board: int, name: str, play: str) -> str:
    """The play as play by mail writes it (its numbering is the seed's: ohs, black, moves 24 to 1)."""
    state = http.get(f"/api/matches/{board}").json()
    game = GameState.from_gnubg_id(state["gnubg_id"])
    color = Color.WHITE if state["players"]["white"] == name else Color.BLACK
    chosen = game.position.legal_plays(*game.dice).find(play)
    return pbm_notation.format_play(chosen, color)


def _against_the_bot(http: TestClient) -> list[dict]:
    erin = Client(http, "erin").register()
    match = http.post("/api/matches", json={"opponent": "bot:random", "length": 1},
                      headers=erin.headers).json()["id"]
    for _ in range(2000):
        state = erin.match(match)
        if state["status"] != "playing":
            return erin.match(match, history=True)["history"]
        if state["players"][state["to_act"]] == "erin":
            erin.act(match, version=state["version"], **_script(state))
    raise AssertionError("the match against the bot did not end")


def test_the_same_match_through_every_door_writes_the_same_events(http) -> None:
    by_http, by_mail, by_bot = _by_http(http), _by_mail(http), _against_the_bot(http)
    assert _game_events(by_http) and any(kind == "match_over" for kind, *_ in _game_events(by_http))
    assert _game_events(by_mail) == _game_events(by_http)
    assert _game_events(by_bot) == _game_events(by_http)
    # and each door told the events as the one narrator tells them to its listener
    names = {Color.WHITE: "alice", Color.BLACK: "bob"}
    narrator = Narrator(names, Color.WHITE)
    for event in by_http:
        told = narrator.tell(event_from_data(event["kind"], event["game"], event["color"], event["data"]))
        assert event["description"] == told, (event, told)


def test_the_terminal_tells_each_event_as_the_server_does(http) -> None:
    """A terminal at a server's table hears the server's events in the very words the server sends."""
    history = _by_http(http)
    kinds = {event["kind"] for event in history}
    assert {"opening", "roll", "play", "game_over", "match_over"} <= kinds

    class Replayed:
        """A table whose news is the server's history (what a RemoteTable hands the terminal)."""

        def __init__(self) -> None:
            self.names = {Color.WHITE: "alice", Color.BLACK: "bob"}
            self.you = Color.WHITE
            self._news = [event_from_data(e["kind"], e["game"], e["color"], e["data"]) for e in history]

        def news(self) -> list:
            news, self._news = self._news, []
            return news

    lines: list[str] = []
    Terminal(Replayed(), input, lines.append, Settings()).tell()
    prompts = (" Take (Y) or drop (N)?", " Accept (Y) or reject (N)?")
    spoken = [line.removesuffix(prompts[0]).removesuffix(prompts[1]) for line in lines]
    assert spoken == [event["description"] for event in history]
