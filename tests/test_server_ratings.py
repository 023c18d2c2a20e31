"""Ratings nobody can farm (docs/server.md), on SQLite and PostgreSQL: the farm of issue 36 —
throw-away accounts that lose five 1-point matches to a bot, then lose to the farmer — gains the
farmer nothing, while honest players' ratings move as the FIBS formula says.

The test client comes from one address, as the farm did; where a test needs people on networks
of their own, :func:`_apart` gives each one (the networks a log-in notes are tested first).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from gammon.server.app import create_app
from gammon.server.matches.ratings import rating_change
from gammon.server.settings import Limits, Settings
from server_support import Client, database


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


def _app(url: str, **limits: int) -> TestClient:
    for limit in ("registrations_per_address", "challenges_per_user", "invitations_per_target"):
        limits.setdefault(limit, 1000)  # a farm is many accounts and invitations: the limits on those are tested apart
    return TestClient(create_app(Settings(db_url=url, bot_workers=1, hint_player="pubeval", limits=Limits(**limits))))


def _finish(loser: Client, winner: Client | None, match: int) -> dict:
    """The loser resigns a backgammon at every chance; a person winning accepts (a bot decides for itself)."""
    players = {loser.name: loser, **({winner.name: winner} if winner else {})}
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        state = loser.match(match)
        if state["status"] == "finished":
            return state
        actor = players.get(state["to_act"] and state["players"][state["to_act"]])
        if actor is None:  # a bot is thinking
            time.sleep(0.02)
            continue
        actions = state["actions"]
        if actor is loser and "resign" in actions:
            body = {"action": "resign", "value": 3}
        elif "accept" in actions:
            body = {"action": "accept"}
        elif "take" in actions:
            body = {"action": "take"}
        elif "play" in actions:
            body = {"action": "play", "play": state["legal"][0]}
        else:
            body = {"action": "roll"}
        answer = actor.post(match, version=state["version"], **body)
        assert answer.status_code in (200, 409), answer.text  # 409: a bot moved first
    raise AssertionError(f"match {match} did not end")


def _lose(loser: Client, winner: Client | str, length: int = 1) -> dict:
    """One match that ``loser`` loses to ``winner`` (a person, or a bot's name)."""
    if isinstance(winner, str):
        return _finish(loser, None, loser.challenge(winner, length=length)["id"])
    match = loser.challenge(winner.name, length=length)["id"]
    winner.accept(match)
    return _finish(loser, winner, match)


def _apart(http: TestClient, *people: Client) -> None:
    """Put each of ``people`` on a network of their own, as if each logged in from home."""
    with http.app.state.runtime.database.begin() as connection:
        for person in people:
            user = connection.execute(text("SELECT id FROM users WHERE name = :name"), {"name": person.name}).scalar()
            connection.execute(text("UPDATE networks SET network = :where WHERE user_id = :user"),
                               {"where": f"198.51.{user}.0/24", "user": user})


def _page(http: TestClient, name: str) -> dict:
    return http.get(f"/api/users/{name}").json()


def test_a_log_in_notes_its_network_and_people_on_one_network_are_not_each_others_opponents(db_url) -> None:
    with _app(db_url, provisional_matches=2) as http:
        alice, bob = Client(http, "alice").register(), Client(http, "bob").register()
        with http.app.state.runtime.database.begin() as connection:
            noted = connection.execute(text("SELECT u.name, n.network FROM networks n JOIN users u ON u.id = n.user_id "
                                            "ORDER BY u.name")).all()
        assert [tuple(row) for row in noted] == [("alice", "testclient"), ("bob", "testclient")]
        _lose(alice, "bot:random")
        assert _lose(alice, bob)["rated"] is False  # two provisional people: no rating moves
        assert _page(http, "alice")["provisional"] is True  # bob, on alice's network, is not an opponent of hers
        assert _page(http, "bob")["provisional"] is True
        _apart(http, alice, bob)
        assert _lose(bob, alice)["rated"] is False
        assert not _page(http, "alice")["provisional"]  # the bots and bob: two opponents
        assert _page(http, "bob")["provisional"]  # alice only


def test_the_farm_of_issue_36_gains_the_farmer_nothing(db_url) -> None:
    """8 throw-away accounts, each losing five 1-point matches to a bot and then three 5-point
    matches to the farmer: before this rule the farmer went from 1450.8 to 1802.8 and the top of
    the weekly list; now it must gain under 20 points (it gains none)."""
    with _app(db_url) as http:
        farmer = Client(http, "farmer").register()
        for _ in range(5):
            _lose(farmer, "bot:random")
        before = _page(http, "farmer")
        assert before["rating"] < 1500 and before["provisional"]  # the bots together are one opponent
        throw_aways = [Client(http, f"throw{letter}").register() for letter in "abcdefgh"]
        for throw_away in throw_aways:
            for _ in range(5):
                _lose(throw_away, "bot:random")
            for _ in range(3):
                final = _lose(throw_away, farmer, length=5)
                assert final["winner"] == "farmer" and final["rated"] is False
        after = _page(http, "farmer")
        assert after["rating"] - before["rating"] < 20
        assert after["rating"] == before["rating"] and after["provisional"]
        assert all(_page(http, throw_away.name)["provisional"] for throw_away in throw_aways)
        assert http.get("/api/toplist").json() == [] and http.get("/api/toplist?period=week").json() == []

        # nor when the farmer is established by honest play, against people elsewhere
        honest = [Client(http, f"honest{letter}").register() for letter in "abcd"]
        _apart(http, *honest)
        for person in honest:
            _lose(person, farmer)
        assert not _page(http, "farmer")["provisional"]
        established = _page(http, "farmer")["rating"]
        for throw_away in throw_aways:  # the pairs' earlier matches moved nothing: none counts against the day's 3
            assert _lose(throw_away, farmer, length=5)["rated"] is True  # the throw-away's rating moves
        assert _page(http, "farmer")["rating"] == established
        week = http.get("/api/toplist?period=week").json()  # what it lost to the bots, and nothing won since
        assert [row["name"] for row in week] == ["farmer"] and week[0]["gained"] == pytest.approx(
            before["rating"] - 1500, abs=0.02)

        # nor can the throw-aways, all on the farmer's network, make each other opponents
        for loser, winner in zip(throw_aways, throw_aways[1:] + throw_aways[:1]):
            _lose(loser, winner)
        assert all(_page(http, throw_away.name)["provisional"] for throw_away in throw_aways)


def test_honest_players_rate_as_the_fibs_formula_says(db_url) -> None:
    with _app(db_url, provisional_matches=2, pair_matches_per_day=3) as http:
        alice, bob, carol = (Client(http, name).register() for name in ("alice", "bob", "carol"))
        _apart(http, alice, bob, carol)
        for person in (alice, bob):
            _lose(person, "bot:random")
        assert _lose(alice, bob)["rated"] is False  # both provisional: no rating moves, but each met the other
        assert not _page(http, "alice")["provisional"] and not _page(http, "bob")["provisional"]
        with http.app.state.runtime.database.begin() as connection:
            rows = {row.name: row for row in connection.execute(text("SELECT name, rating, experience FROM users"))}
        gain, loss = rating_change(rows["alice"].rating, rows["bob"].rating, rows["alice"].experience,
                                   rows["bob"].experience, 3)
        final = _lose(bob, alice, length=3)
        assert final["rated"] is True
        assert _page(http, "alice")["rating"] == pytest.approx(rows["alice"].rating + gain, abs=0.01)
        assert _page(http, "bob")["rating"] == pytest.approx(rows["bob"].rating - loss, abs=0.01)
        assert gain > 10 and loss > 10  # a real change, both ways

        # against an established player, a provisional one moves alone
        alice_now = _page(http, "alice")["rating"]
        assert _lose(carol, alice)["rated"] is True
        assert _page(http, "alice")["rating"] == alice_now and _page(http, "carol")["rating"] < 1500

        # two established players rate at most three matches a day against each other
        assert [_lose(alice, bob)["rated"] for _ in range(3)] == [True, True, False]
        assert {row["name"] for row in http.get("/api/toplist").json()} == {"alice", "bob"}  # carol is provisional
