"""The lobby and a match's life around the game, on SQLite and on PostgreSQL: the bots on offer,
who is online, invitations withdrawn or left to expire, rematches with the rating change,
rule variants, and clocks that end a match when a player's time runs out (docs/server.md)."""

from __future__ import annotations

import datetime as dt
import random
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gammon.server.app import create_app
from gammon.server.errors import Unprocessable
from gammon.server.matches.rules import fair_options, terms, unrated_because
from gammon.server.matches.store import Seat
from gammon.server.settings import Limits, Settings
from server_support import Client, database, play_out

RATED_AT_ONCE = Limits(provisional_matches=0)
NACKGAMMON_PIPS = 2 * 24 + 2 * 23 + 4 * 13 + 3 * 8 + 4 * 6


@pytest.fixture(params=["sqlite", "postgresql"])
def http(request, tmp_path):
    with database(request.param, tmp_path) as url:
        settings = Settings(db_url=url, bot_workers=1, limits=RATED_AT_ONCE)
        with TestClient(create_app(settings)) as client:
            yield client


def people(http, *names):
    """People who act with their tokens; the test client's own requests are a visitor's (no cookie)."""
    made = [Client(http, name).register() for name in names]
    http.cookies.clear()
    return made


def challenge(client: Client, opponent: str, length: int = 1, **options: Any) -> Any:
    return client.http.post("/api/matches", json={"opponent": opponent, "length": length, "options": options},
                            headers=client.headers)


def wait_for(client: Client, match_id: int, done, limit: float = 120.0) -> dict[str, Any]:
    """The match once ``done(view)`` holds (the server's own tasks act in their time, not the test's)."""
    deadline = time.monotonic() + limit
    while True:
        view = client.match(match_id, history=True)
        if done(view) or time.monotonic() > deadline:
            return view
        time.sleep(0.2)


def test_the_bots_on_offer_have_names_and_strengths_weakest_first(http):
    bots = http.get("/api/bots").json()
    names = [bot["name"] for bot in bots]
    assert names[0] == "bot:random" and "bot:nn:2" in names and names.index("bot:simple") < names.index("bot:nn")
    assert [bot["name"] for bot in bots if bot["default"]] == ["bot:simple"]  # seed 004's default opponent
    assert all(bot["title"] and bot["strength"] and bot["rating"] == 1500 for bot in bots)
    (alice,) = people(http, "alice")
    made = challenge(alice, bots[1]["name"])  # every bot offered can be challenged by the name given
    assert made.status_code == 201 and made.json()["status"] == "playing", made.text


def test_the_lobby_shows_who_is_online_and_each_side_of_an_invitation(http):
    alice, bob = people(http, "alice", "bob")
    match = challenge(alice, "bob", 3).json()
    visitor = http.get("/api/lobby")  # logged out: who is online, nothing of anyone's
    assert visitor.status_code == 200
    assert {person["name"] for person in visitor.json()["online"]} == {"alice", "bob"}
    assert visitor.json()["invitations"] == {"to_me": [], "from_me": []}
    to_bob = http.get("/api/lobby", headers=bob.headers).json()
    assert [item["id"] for item in to_bob["invitations"]["to_me"]] == [match["id"]]
    assert to_bob["invitations"]["to_me"][0]["options"]["crawford"] is True
    from_alice = http.get("/api/lobby", headers=alice.headers).json()
    assert [item["id"] for item in from_alice["invitations"]["from_me"]] == [match["id"]]
    bob.accept(match["id"])
    playing = http.get("/api/lobby", headers=bob.headers).json()
    assert [item["id"] for item in playing["playing"]] == [match["id"]] and not playing["invitations"]["to_me"]
    assert all(person["playing"] for person in playing["online"])


def test_the_challenger_withdraws_an_invitation_and_nobody_else_can(http):
    alice, bob, carol = people(http, "alice", "bob", "carol")
    match_id = challenge(alice, "bob", 3).json()["id"]
    for stranger in (bob, carol):
        refused = http.post(f"/api/matches/{match_id}/withdraw", headers=stranger.headers)
        assert refused.status_code == 403 and "alice" in refused.json()["detail"]
    withdrawn = http.post(f"/api/matches/{match_id}/withdraw", headers=alice.headers)
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    assert withdrawn.json()["events"][-1]["description"] == "You withdraw the challenge."
    late = http.post(f"/api/matches/{match_id}/accept", headers=bob.headers)
    assert late.status_code == 422 and "withdrawn" in late.json()["detail"]
    listed = http.get("/api/matches", params={"user": "alice", "status": "withdrawn"}).json()
    assert [item["id"] for item in listed] == [match_id]
    assert http.get(f"/api/matches/{match_id}").json()["dice_proof"]["seed"]  # revealed: nothing to hide


def test_a_finished_match_shows_the_rating_change_and_offers_a_rematch(http):
    alice, bob, carol = people(http, "alice", "bob", "carol")
    first = challenge(alice, "bob", 1, verbose=True).json()  # rated: no engine hints between people
    bob.accept(first["id"])
    early = http.post(f"/api/matches/{first['id']}/rematch", headers=alice.headers)
    assert early.status_code == 422 and "finished" in early.json()["detail"]
    final = play_out({"alice": alice, "bob": bob}, first["id"], random.Random(7))
    assert final["status"] == "finished" and final["rated"] is True
    ratings = final["ratings"]
    winner = "white" if final["winner"] == "alice" else "black"
    loser = "black" if winner == "white" else "white"
    assert ratings[winner]["before"] == ratings[loser]["before"] == 1500
    assert ratings[winner]["after"] > 1500 > ratings[loser]["after"]
    assert http.get("/api/users/alice").json()["rating"] == ratings["white"]["after"]
    outsider = http.post(f"/api/matches/{first['id']}/rematch", headers=carol.headers)
    assert outsider.status_code == 403
    again = http.post(f"/api/matches/{first['id']}/rematch", headers=bob.headers)
    assert again.status_code == 201, again.text
    rematch = again.json()
    assert rematch["status"] == "invited" and rematch["players"] == {"white": "bob", "black": "alice"}
    assert rematch["length"] == 1 and rematch["options"]["verbose"] is True and rematch["ratings"] is None
    assert rematch["options"]["rated"] is True
    versus_bot = challenge(alice, "bot:random", 1).json()
    bot_final = play_out({"alice": alice}, versus_bot["id"], random.Random(8))
    assert bot_final["status"] == "finished"
    with_bot = http.post(f"/api/matches/{versus_bot['id']}/rematch", headers=alice.headers).json()
    assert with_bot["status"] == "playing" and with_bot["players"]["black"] == "bot:random"


def test_a_match_of_nackgammon_starts_from_nackgammons_position_and_plays_to_the_end(http):
    alice, bob = people(http, "alice", "bob")
    refused = challenge(alice, "bob", 1, variant="backgammon-with-jokers")
    assert refused.status_code == 422 and refused.json()["detail"].startswith("options.variant")
    made = challenge(alice, "bob", 1, variant="nackgammon").json()
    assert made["options"]["variant"] == "nackgammon"
    started = bob.accept(made["id"])
    assert started["pips"] == {"white": NACKGAMMON_PIPS, "black": NACKGAMMON_PIPS}  # the opening roll, not yet played
    board = http.get(f"/api/matches/{made['id']}/board").json()
    cells = {(cell["point"], cell["color"], cell["count"]) for cell in board["cells"]}
    assert {(24, "white", 2), (23, "white", 2), (13, "white", 4)} <= cells, cells
    final = play_out({"alice": alice, "bob": bob}, made["id"], random.Random(3))
    assert final["status"] == "finished"
    record = http.get(f"/api/matches/{made['id']}/record.mat")
    assert record.status_code in (200, 422)
    if record.status_code == 422:
        assert "nackgammon" in record.json()["detail"]


def present(client: Client, match_id: int) -> dict[str, Any]:
    """The match fetched by a player with their log-in: they are present (docs/server.md, "Time")."""
    answer = client.http.get(f"/api/matches/{match_id}", headers=client.headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def until(condition, what: str, limit: float = 120.0) -> None:
    """Wait for ``condition()``: an answer must come, not come fast."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {limit} s"
        time.sleep(0.05)


def test_a_player_whose_time_runs_out_loses_the_match(http):
    alice, bob = people(http, "alice", "bob")
    for clock in ({"delay": 5}, {"delay": -1, "reserve": 60}, {"delay": 5, "reserve": 0}, "blitz"):
        refused = challenge(alice, "bob", 3, clock=clock)
        assert refused.status_code == 422 and refused.json()["detail"].startswith("options.clock"), refused.text
    made = challenge(alice, "bob", 3, clock={"delay": 0, "reserve": 2}, rated=False).json()
    assert made["clock"] is None  # nobody's time runs before the match begins
    started = bob.accept(made["id"])
    clock = started["clock"]
    assert clock["delay"] == 0 and clock["reserve"] == {"white": 2, "black": 2}
    assert clock["running"] == started["to_act"] and clock["since"].endswith("Z")
    assert clock["waiting"] == ["white"]  # bob is present by accepting; alice has not come back since
    late_side = started["to_act"]
    late = {"white": alice, "black": bob}[late_side]
    present(late, made["id"])  # and now the side to act is here: its time runs
    final = wait_for(alice, made["id"], lambda view: view["status"] == "finished")
    assert final["status"] == "finished", "the timekeeper ended the match"
    assert final["winner"] == ("bob" if late_side == "white" else "alice")
    told = [event["description"] for event in final["history"][-2:]]
    assert told[0] == f"{late.name} runs out of time." and told[1].startswith(f"{final['winner']} wins the 3-point match 3-")
    assert final["to_act"] is None and final["actions"] == [] and final["clock"]["running"] is None
    assert final["rated"] is False  # a blitz clock is for unrated play
    refused = late.post(made["id"], action="roll")
    assert refused.status_code == 422 and "finished" in refused.json()["detail"]


def test_a_reserve_under_a_minute_is_refused_for_rated_play(http):
    alice, bob = people(http, "alice", "bob")
    blitz = {"delay": 0, "reserve": 1}  # issue 36: a script with a 1-second reserve won every rated match accepted
    for opponent, length in (("bob", 3), ("bob", 1), ("bot:random", 1)):
        refused = challenge(alice, opponent, length, clock=blitz)
        detail = refused.json()["detail"]
        assert refused.status_code == 422 and detail.startswith("options.clock.reserve"), refused.text
        assert "60-14400" in detail and "got 1" in detail and "rated false" in detail, detail
    refused = challenge(alice, "bob", 0, rated=True)
    assert refused.status_code == 422 and refused.json()["detail"].startswith("options.rated"), refused.text
    unrated = challenge(alice, "bob", 3, clock=blitz, rated=False).json()
    money = challenge(alice, "bob", 0, clock=blitz, variant="nackgammon").json()
    least = challenge(alice, "bob", 3, clock={"delay": 0, "reserve": 60}).json()
    assert least["options"]["rated"] is True and unrated["options"]["rated"] is False
    assert money["options"]["rated"] is False
    # what accepting agrees to is in the invitation before anyone accepts: clock, variant, rated
    to_bob = {item["id"]: item for item in http.get("/api/lobby", headers=bob.headers).json()["invitations"]["to_me"]}
    assert to_bob[unrated["id"]]["options"]["clock"] == blitz and to_bob[unrated["id"]]["options"]["rated"] is False
    assert to_bob[money["id"]]["options"]["variant"] == "nackgammon"
    assert to_bob[least["id"]]["options"]["clock"] == {"delay": 0, "reserve": 60} and to_bob[least["id"]]["options"]["rated"]


def test_engine_hints_make_a_match_between_people_unrated_and_the_invitation_says_so(http):
    alice, bob = people(http, "alice", "bob")
    for helps, said in (({"hints": True}, "engine hints on"), ({"cube_hints": True}, "cube hints on"),
                        ({"hints": True, "cube_hints": True}, "engine hints and cube hints on")):
        made = challenge(alice, "bob", 5, **helps)
        assert made.status_code == 201, made.text
        assert made.json()["options"]["rated"] is False, helps
        invitation = {item["id"]: item for item in
                      http.get("/api/lobby", headers=bob.headers).json()["invitations"]["to_me"]}[made.json()["id"]]
        assert invitation["options"]["rated"] is False
        told = terms(invitation["length"], invitation["options"])
        assert told == f"a 5-point match, no clock, unrated, {said}", told
        asked = challenge(alice, "bob", 5, rated=True, **helps)  # rated, in so many words: refused, and why
        detail = asked.json()["detail"]
        assert asked.status_code == 422 and detail.startswith("options.rated: "), asked.text
        assert "engine hints are on" in detail and "turn the hints off" in detail, detail
    plain = challenge(alice, "bob", 5, rated=True).json()  # without hints a rated match between people is made
    assert plain["options"]["rated"] is True and terms(5, plain["options"]) == "a 5-point match, no clock, rated"
    started = bob.accept(challenge(alice, "bob", 1, hints=True).json()["id"])  # unrated, so hints are answered
    mover = {"alice": alice, "bob": bob}[started["players"][started["to_act"]]]
    assert http.get(f"/api/matches/{started['id']}/hint", headers=mover.headers).status_code == 200
    final = play_out({"alice": alice, "bob": bob}, started["id"], random.Random(3))
    assert final["status"] == "finished" and final["rated"] is False and final["ratings"] is None
    assert http.get("/api/users/alice").json()["rating"] == 1500  # an unrated match moves nobody


def test_fair_options_unrate_hints_between_people_only():
    alice, bob, bot = Seat(1, "alice", False), Seat(2, "bob", False), Seat(3, "bot:nn", True)
    helped = {"rated": True, "hints": False, "cube_hints": True}
    assert unrated_because(helped, alice, bob) and unrated_because(helped, bot, alice) is None
    assert fair_options(helped, alice, bob, None) == {**helped, "rated": False}
    assert fair_options(helped, alice, bot, True) == helped  # against a bot: rated, hints or not
    plain = {"rated": True, "hints": False, "cube_hints": False}
    assert fair_options(plain, alice, bob, True) == plain
    with pytest.raises(Unprocessable, match=r"^options\.rated: this match cannot be rated: engine hints are on"):
        fair_options(helped, alice, bob, True)
    assert fair_options({**helped, "rated": False}, alice, bob, False)["rated"] is False


def test_a_match_against_a_bot_with_hints_stays_rated(http):
    (alice,) = people(http, "alice")
    for options in ({"hints": True, "cube_hints": True}, {"hints": True, "cube_hints": True, "rated": True}):
        made = challenge(alice, "bot:random", 1, **options)
        assert made.status_code == 201, made.text
        assert made.json()["options"]["rated"] is True and made.json()["options"]["hints"] is True
        assert terms(1, made.json()["options"]) == "a 1-point match, no clock, rated, engine hints and cube hints on"
    final = play_out({"alice": alice}, made.json()["id"], random.Random(5))
    assert final["status"] == "finished" and final["rated"] is True


def _away_to_act(alice: Client, bob: Client, **options: Any) -> dict[str, Any]:
    """A match alice challenged bob to, accepted by bob while alice is away, with alice to play first
    (the opening roll decides who does: invitations until one falls so)."""
    for _ in range(40):
        made = challenge(alice, "bob", 3, **options).json()
        started = bob.accept(made["id"])
        if started["to_act"] == "white":
            return started
    raise AssertionError("forty opening rolls, and bob played first in each")


def test_a_challenger_away_at_the_acceptance_loses_no_time_until_they_come(http):
    alice, bob = people(http, "alice", "bob")
    started = _away_to_act(alice, bob, clock={"delay": 0, "reserve": 2}, rated=False)
    match_id = started["id"]
    assert started["clock"]["running"] == "white" and started["clock"]["waiting"] == ["white"]
    # the timekeeper looks at the clocks well past alice's delay and reserve: she has not lost
    service = http.app.state.runtime.service
    due = dt.datetime.fromisoformat(started["clock"]["since"].removesuffix("Z")) + dt.timedelta(seconds=2 + 3)
    until(lambda: service.heard is not None and service.heard > due, "heartbeat past alice's reserve")
    looked = service.heard
    until(lambda: service.heard > looked, "a look at the clocks after it")
    waiting = alice.match(match_id)
    assert waiting["status"] == "playing" and waiting["clock"]["waiting"] == ["white"], waiting["clock"]
    assert waiting["clock"]["reserve"] == {"white": 2, "black": 2}
    # she opens the match's event stream: she is present, her time runs from now
    with http.websocket_connect(f"/api/matches/{match_id}/events", headers=alice.headers) as stream:
        assert stream.receive_json()["seq"] == 0
        until(lambda: alice.match(match_id)["clock"]["waiting"] == [], "alice present")
    final = wait_for(alice, match_id, lambda view: view["status"] == "finished")
    assert final["winner"] == "bob" and final["history"][-2]["description"] == "alice runs out of time."


def test_an_absent_challenger_meets_the_idle_rule_not_the_clock(tmp_path):
    with database("sqlite", tmp_path) as url:
        settings = Settings(db_url=url, bot_workers=1, idle_days=4 / 86400)
        with TestClient(create_app(settings)) as http:
            alice, bob = people(http, "alice", "bob")
            started = _away_to_act(alice, bob, clock={"delay": 0, "reserve": 1}, rated=False)
            final = wait_for(bob, started["id"], lambda view: view["status"] == "finished")
            assert final["winner"] == "bob" and final["history"][-2]["description"] == "alice stays away too long."


def test_a_player_keeps_the_delay_and_only_the_reserve_runs_down(http):
    alice, bob = people(http, "alice", "bob")
    made = challenge(alice, "bob", 3, clock={"delay": 60, "reserve": 300}).json()
    view = bob.accept(made["id"])
    players = {"white": alice, "black": bob}
    for _ in range(6):  # a few quick turns, each well inside the delay
        side = view["to_act"]
        client = players[side]
        if "play" in view["actions"]:
            view = client.act(made["id"], action="play", play=view["legal"][0])
        else:
            view = client.act(made["id"], action="roll")
        assert view["status"] == "playing"
    assert view["clock"]["reserve"] == {"white": 300, "black": 300}  # no reserve used inside the delay
    assert view["clock"]["running"] == view["to_act"]


def test_an_invitation_nobody_answers_expires_by_itself(tmp_path):
    with database("sqlite", tmp_path) as url:
        settings = Settings(db_url=url, bot_workers=1, invitation_hours=2 / 3600)
        with TestClient(create_app(settings)) as http:
            alice, bob = people(http, "alice", "bob")
            made = challenge(alice, "bob", 3).json()
            final = wait_for(alice, made["id"], lambda view: view["status"] != "invited")
            assert final["status"] == "expired"
            assert final["history"][-1]["description"] == "bob stays away too long."
            late = http.post(f"/api/matches/{made['id']}/accept", headers=bob.headers)
            assert late.status_code == 422 and "expired" in late.json()["detail"]


def test_a_match_left_by_a_person_is_lost_by_them(tmp_path):
    with database("sqlite", tmp_path) as url:
        settings = Settings(db_url=url, bot_workers=1, idle_days=3 / 86400, limits=RATED_AT_ONCE)
        with TestClient(create_app(settings)) as http:
            alice, bob = people(http, "alice", "bob")
            made = challenge(alice, "bob", 3).json()
            started = bob.accept(made["id"])
            gone = started["players"][started["to_act"]]
            final = wait_for(alice, made["id"], lambda view: view["status"] == "finished")
            assert final["status"] == "finished" and final["winner"] != gone
            assert final["history"][-2]["description"] == f"{gone} stays away too long."
            assert final["rated"] is True and final["ratings"]


def test_the_terminal_lobby_tells_an_invitations_terms_before_it_is_accepted(http, capsys):
    from gammon.cli.play import _lobby
    from gammon.cli.table import ServerClient

    alice, bob = people(http, "alice", "bob")
    made = challenge(alice, "bob", 3, variant="nackgammon", clock={"delay": 12, "reserve": 300}).json()

    class Door:  # the terminal's requests, sent through the test's client with bob's log-in
        def request(self, method: str, path: str, json: Any = None) -> Any:
            return http.request(method, path, json=json, headers=bob.headers)

    terminal = object.__new__(ServerClient)
    terminal.url, terminal.name, terminal.http = "http://testserver", "bob", Door()
    assert _lobby(terminal, lambda prompt: "quit", {}) is None
    told = capsys.readouterr().out
    assert (f"#1 match {made['id']}: alice invites you to a 3-point match of nackgammon, 12 s a move + 5:00 in "
            "reserve, rated: accept #1 or decline #1") in told, told
