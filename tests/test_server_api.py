"""The game server's JSON contract, on SQLite and on PostgreSQL (docs/server.md)."""

from __future__ import annotations

import datetime as dt
import json
import logging
import random
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, text, update
from sqlalchemy.exc import IntegrityError

from gammon import Color
from gammon.record import MatchRecord
from gammon.server.app import create_app
from gammon.server.matches.fair_dice import DiceProofError, commitment, drawn_seed
from gammon.server.matches.live import chain
from gammon.server.matches.proof import digest_of, verify_match
from gammon.server.models import EVENTS, MATCHES, skeleton, utcnow
from gammon.server.settings import Limits, Settings
from server_support import Client, choose, database, play_out
import itertools

#: Every match rated from the first (the rule for new accounts has tests of its own, test_server_ratings.py).
RATED_AT_ONCE = Limits(provisional_matches=0)


@pytest.fixture(params=["sqlite", "postgresql"])
def http(request, tmp_path):
    with database(request.param, tmp_path) as url:
        settings = Settings(db_url=url, bot_workers=1, hint_player="pubeval", limits=RATED_AT_ONCE)
        with TestClient(create_app(settings)) as client:
            yield client


def people(http, *names):
    return [Client(http, name).register() for name in names]


def invited(http):
    alice, bob = people(http, "alice", "bob")
    match = alice.challenge("bob", length=3)
    return alice, bob, match


# -- accounts -------------------------------------------------------------------------------
def test_register_log_in_and_the_refusals(http, caplog):
    caplog.set_level(logging.DEBUG)
    created = http.post("/api/users", json={"name": "alice", "password": "s3cret-words"})
    assert created.status_code == 201 and created.json()["name"] == "alice" and created.json()["rating"] == 1500
    assert "s3cret-words" not in created.text
    assert http.post("/api/users", json={"name": "Alice", "password": "other-words"}).status_code == 409
    for body in ({"name": "a", "password": "long enough"}, {"name": "9lives", "password": "long enough"},
                 {"name": "carol\n", "password": "long enough"}, {"name": "carol", "password": "carol"},
                 {"name": "dave", "password": "DAVE"},
                 {"name": "bob", "password": "short"}, {"name": "bob"}, {"name": 5, "password": "long enough"},
                 {"name": "bob", "password": "long enough", "admin": True}):
        answer = http.post("/api/users", json=body)
        assert answer.status_code == 422, body
        assert answer.json()["detail"]
    assert http.post("/api/users", content=b"{not json", headers={"content-type": "application/json"}).status_code == 422
    logged = http.post("/api/sessions", json={"name": "alice", "password": "s3cret-words"})
    assert logged.status_code == 200 and len(logged.json()["token"]) > 30
    assert "httponly" in logged.headers["set-cookie"].lower()
    assert http.post("/api/sessions", json={"name": "alice", "password": "wrong-words"}).status_code == 401
    assert http.post("/api/sessions", json={"name": "nobody", "password": "wrong-words"}).status_code == 401
    assert "s3cret-words" not in caplog.text


def test_names_that_look_alike_are_refused_naming_the_one_they_look_like(http):
    people(http, "alice", "a1234l", "mary")
    for name, like in (("aIice", "alice"), ("a1ice", "alice"), ("AL1CE", "alice"), ("a1234I", "a1234l"),
                       ("A12341", "a1234l"), ("rnary", "mary")):
        answer = http.post("/api/users", json={"name": name, "password": "long enough"})
        assert answer.status_code == 409, name
        assert answer.json()["detail"] == f"name: {name!r} is too like an existing name, {like!r}: choose another"
    assert http.post("/api/users", json={"name": "Alice", "password": "long enough"}).json()["detail"] == \
        "name: 'Alice' is taken"
    assert http.post("/api/users", json={"name": "alicia", "password": "long enough"}).status_code == 201
    with pytest.raises(IntegrityError), http.app.state.runtime.database.begin() as connection:  # the database itself
        connection.execute(text("INSERT INTO users (name, skeleton, is_bot, rating, experience, opponents, created, "
                                "mail_on_turn) VALUES ('aIice', :skeleton, false, 1500, 0, 0, :now, true)"),
                           {"skeleton": skeleton("aIice"), "now": utcnow()})


def test_a_stranger_guessing_is_stopped_but_the_owner_logs_in_from_a_known_device(http):
    (_carol,) = people(http, "carol")
    device = http.post("/api/sessions", json={"name": "carol", "password": "correct horse"}).json()["device"]
    http.cookies.clear()  # a stranger: no cookie of carol's
    codes = [http.post("/api/sessions", json={"name": "carol", "password": f"guess-{n}"}).status_code for n in range(12)]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]
    refused = http.post("/api/sessions", json={"name": "carol", "password": "correct horse"})
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0  # even the right password
    owner = http.post("/api/sessions", json={"name": "carol", "password": "correct horse", "device": device})
    assert owner.status_code == 200, owner.text  # the device carol logged in from before is not locked out


def test_tokens_cookies_log_out_and_password_change(http):
    (alice,) = people(http, "alice")
    assert http.get("/api/users/me", headers=alice.headers).json()["name"] == "alice"
    http.cookies.clear()
    assert http.get("/api/users/me").status_code == 401
    assert http.get("/api/users/me", headers={"Authorization": "Bearer forged"}).status_code == 401
    answer = http.put("/api/users/me/password", json={"old": "wrong one!", "new": "new password"}, headers=alice.headers)
    assert answer.status_code == 401
    assert http.put("/api/users/me/password", json={"old": "correct horse", "new": "new password"},
                    headers=alice.headers).status_code == 204
    assert http.get("/api/users/me", headers=alice.headers).status_code == 401  # old log-ins end
    alice.password = "new password"
    alice.log_in()
    first = alice.token
    alice.log_in()
    listed = http.get("/api/sessions", headers=alice.headers).json()
    assert len(listed) == 2 and sum(item["current"] for item in listed) == 1
    other = next(item["id"] for item in listed if not item["current"])
    assert http.delete(f"/api/sessions/{other}", headers=alice.headers).status_code == 204
    assert http.get("/api/users/me", headers={"Authorization": f"Bearer {first}"}).status_code == 401  # revoked
    assert http.delete("/api/sessions/999999", headers=alice.headers).status_code == 404
    assert http.delete("/api/sessions", headers=alice.headers).status_code == 204
    assert http.get("/api/users/me", headers=alice.headers).status_code == 401


# -- challenges and play ---------------------------------------------------------------------
def test_a_challenge_is_accepted_and_the_opening_roll_decides_who_starts(http):
    alice, bob, match = invited(http)
    assert match["status"] == "invited" and match["players"] == {"white": "alice", "black": "bob"}
    assert alice.post(match["id"], action="roll").status_code == 422  # nothing to play yet
    assert http.post(f"/api/matches/{match['id']}/accept", headers=alice.headers).status_code == 403
    state = bob.accept(match["id"])
    assert state["status"] == "playing" and state["actions"] == ["play", "resign"]
    assert "history" not in state and [event["kind"] for event in state["events"]] == ["accept_challenge", "opening"]
    opening = next(event for event in state["events"] if event["kind"] == "opening")
    white, black = opening["data"]["white_die"], opening["data"]["black_die"]
    assert white != black and state["to_act"] == ("white" if white > black else "black")
    assert sorted(state["dice"], reverse=True) == sorted([white, black], reverse=True)
    assert state["legal"] and all(isinstance(play, str) for play in state["legal"])
    assert len(state["dice_proof"]["commitment"]) == 64 and state["dice_proof"]["seed"] is None
    assert state["dice_proof"]["challenger_seed"] and state["dice_proof"]["opponent_seed"]
    assert state["gnubg_id"] and state["bpn"]


def test_declined_challenge(http):
    _alice, bob, match = invited(http)
    assert http.post(f"/api/matches/{match['id']}/decline", headers=bob.headers).json()["status"] == "declined"
    assert http.post(f"/api/matches/{match['id']}/accept", headers=bob.headers).status_code == 422


def test_refusals_name_what_is_legal_and_change_nothing(http):
    alice, bob, match = invited(http)
    state = bob.accept(match["id"])
    mover = alice if state["players"][state["to_act"]] == "alice" else bob
    other = bob if mover is alice else alice
    before = mover.match(match["id"])
    illegal = mover.post(match["id"], action="play", play="24/1", version=before["version"])
    assert illegal.status_code == 422 and before["legal"][0] in illegal.json()["detail"]
    assert other.post(match["id"], action="play", play=before["legal"][0]).status_code == 403
    assert mover.post(match["id"], action="double").status_code == 422
    assert mover.post(match["id"], action="castle").status_code == 422
    assert mover.post(match["id"], action="play", play=before["legal"][0], version=before["version"] - 1).status_code == 409
    assert mover.post(match["id"], action="play", play=before["legal"][0], version="7").status_code == 422
    assert mover.post(match["id"], action="resign", value=4).status_code == 422
    third = Client(http, "mallory").register()
    assert third.post(match["id"], action="play", play=before["legal"][0]).status_code == 403
    http.cookies.clear()  # the last log-in's cookie
    assert http.post(f"/api/matches/{match['id']}/actions", json={"action": "roll"}).status_code == 401
    assert http.post("/api/matches/9999/actions", json={"action": "roll"}, headers=mover.headers).status_code == 404
    after = mover.match(match["id"])
    assert after["version"] == before["version"]
    assert after["last_seq"] == before["last_seq"]
    played = mover.act(match["id"], action="play", play=before["legal"][0], version=before["version"])
    assert played["version"] == before["version"] + 1


def test_challenge_options_are_checked(http):
    alice, _ = people(http, "alice", "bob")
    for body in ({"opponent": "bob", "length": 26}, {"opponent": "bob", "length": -1}, {"opponent": "nobody", "length": 1},
                 {"opponent": "alice", "length": 1}, {"opponent": "bot:nonsense", "length": 1},
                 {"opponent": "bot:gnubg:0", "length": 1}, {"opponent": "bob", "length": 3, "options": {"jacoby": True}},
                 {"opponent": "bob", "length": 3, "options": {"surprise": True}}, {"opponent": "bob", "length": "3"}):
        answer = http.post("/api/matches", json=body, headers=alice.headers)
        assert answer.status_code == 422, (body, answer.text)


def test_a_whole_match_between_people_to_the_end_with_ratings_lists_and_record(http):
    alice, bob, match = invited(http)
    bob.accept(match["id"])
    final = play_out({"alice": alice, "bob": bob}, match["id"], random.Random(3))
    assert final["status"] == "finished" and final["winner"] in ("alice", "bob")
    assert max(final["score"].values()) >= 3 and final["actions"] == []
    assert final["rated"] is True
    kinds = [event["kind"] for event in final["history"]]
    assert kinds[-1] == "match_over" and "game_over" in kinds and [e["seq"] for e in final["history"]] == list(range(len(kinds)))
    assert all(event["description"].endswith(".") for event in final["history"])
    assert final["dice_proof"]["seed"] is not None
    winner, loser = (alice, bob) if final["winner"] == "alice" else (bob, alice)
    # FIBS by hand: equal ratings (P = 1/2), two newcomers (K = 5), 3 points: 4·5·√3·½ = 10·√3 = 17.32
    assert http.get(f"/api/users/{winner.name}").json()["rating"] == pytest.approx(1517.32, abs=0.01)
    page = http.get(f"/api/users/{loser.name}").json()
    assert page["rating"] == pytest.approx(1482.68, abs=0.01) and page["record"] == {"won": 0, "lost": 1}
    assert page["experience"] == 3 and page["recent_matches"][0]["id"] == match["id"]
    assert [row["name"] for row in http.get("/api/toplist?period=all").json()] == [winner.name, loser.name]
    week = http.get("/api/toplist?period=week").json()
    assert week[0]["name"] == winner.name and week[0]["won"] == 1 and week[1]["matches"] == 1
    assert http.get("/api/toplist?period=year").status_code == 422
    listed = http.get("/api/matches", params={"user": "alice", "status": "finished"}).json()
    assert [row["id"] for row in listed] == [match["id"]]
    assert http.get("/api/matches", params={"user": "alice", "status": "playing"}).json() == []
    record = http.get(f"/api/matches/{match['id']}/record.mat")
    assert record.status_code == 200 and "3 point match" in record.text and "alice" in record.text
    replayed = MatchRecord.from_mat(record.text).to_match()  # read back and refereed again
    assert replayed.is_over and replayed.score[Color.WHITE] == final["score"]["white"]
    assert replayed.score[Color.BLACK] == final["score"]["black"]


def test_a_match_against_a_bot_is_accepted_at_once_and_played_by_the_server(http):
    (alice,) = people(http, "alice")
    match = alice.challenge("bot:random", length=1)
    assert match["status"] == "playing" and match["players"]["black"] == "bot:random"
    final = play_out({"alice": alice}, match["id"], random.Random(5))
    assert final["status"] == "finished"
    bot_moves = [e for e in final["history"] if e["color"] == "black" and e["kind"] == "play"]
    assert bot_moves and all(e["description"].startswith("bot:random ") for e in bot_moves)


def test_money_game_with_cube_beaver_and_jacoby(http):
    alice, bob = people(http, "alice", "bob")
    match = alice.challenge("bob", length=0, jacoby=True, beavers=True, verbose=True)
    state = bob.accept(match["id"])
    rng = random.Random(11)
    players = {"alice": alice, "bob": bob}
    doubled = beavered = False
    told = list(state["events"])
    while state["status"] == "playing":
        actor = players[state["players"][state["to_act"]]]
        if "double" in state["actions"] and not doubled:
            body, doubled = {"action": "double"}, True
        elif "beaver" in state["actions"] and not beavered:
            body, beavered = {"action": "beaver"}, True
        else:
            body = choose(state, rng)
            if body["action"] == "drop":
                body = {"action": "take"}
        state = actor.act(match["id"], version=state["version"], **body)
        assert [event["seq"] for event in state["events"]] == list(range(told[-1]["seq"] + 1, state["last_seq"] + 1))
        told += state["events"]
    assert doubled and beavered and state["status"] == "finished"
    plays = [e for e in told if e["kind"] == "play" and "cannot" not in e["description"]]
    assert plays and all("pips" in e["description"] for e in plays)  # verbose commentary
    cube = next(e for e in told if e["kind"] == "beaver")["data"]["cube"]
    assert cube == 4


def test_resignation_offered_rejected_and_accepted(http):
    alice, bob, match = invited(http)
    state = bob.accept(match["id"])
    players = {"alice": alice, "bob": bob}
    actor = players[state["players"][state["to_act"]]]
    state = actor.act(match["id"], action="resign", value=2)
    assert state["resignation"]["value"] == 2 and state["actions"] == ["accept", "reject"]
    other = players[state["players"][state["to_act"]]]
    assert other is not actor
    state = other.act(match["id"], action="reject")
    assert state["resignation"] is None and state["players"][state["to_act"]] == actor.name
    state = actor.act(match["id"], action="resign", value=1)
    state = other.act(match["id"], action="accept")
    ended = next(e for e in state["events"] if e["kind"] == "game_over")
    assert ended["data"]["points"] == 1 and ended["data"]["ended"] == "resigned"


def test_the_event_stream_sends_every_event_in_order_then_new_ones(http):
    alice, bob, match = invited(http)
    state = bob.accept(match["id"])
    http.cookies.clear()  # a spectator: each play in its mover's words
    with http.websocket_connect(f"/api/matches/{match['id']}/events") as stream:
        seen = [stream.receive_json() for _ in range(state["last_seq"] + 1)]
        assert [event["seq"] for event in seen] == list(range(state["last_seq"] + 1))
        players = {"alice": alice, "bob": bob}
        mover = players[state["players"][state["to_act"]]]
        mover.act(match["id"], action="play", play=state["legal"][0])
        event = stream.receive_json()
        assert event["kind"] == "play" and event["description"].startswith(f"{mover.name} plays ")
    with http.websocket_connect("/api/matches/999/events") as stream:
        assert "no match" in stream.receive_json()["error"]


def _forgeries(final):
    """Records changed as a cheat would change them, each with its digest made to fit again."""
    def copy():
        return json.loads(json.dumps(final))

    rolls = [i for i, e in enumerate(final["history"]) if e["kind"] == "roll"]
    changed_roll = copy()
    roll = changed_roll["history"][rolls[0]]
    roll["data"]["dice"] = [roll["data"]["dice"][1] % 6 + 1, roll["data"]["dice"][0]]
    roll["action"] = f"{roll['color']} roll {roll['data']['dice'][0]}-{roll['data']['dice'][1]}"
    relabelled = copy()
    relabelled["history"][rolls[1]]["color"] = "black" if relabelled["history"][rolls[1]]["color"] == "white" else "white"
    opener = copy()
    opening = next(e for e in opener["history"] if e["kind"] == "opening")
    opening["color"] = "black" if opening["color"] == "white" else "white"
    opening["data"]["white_die"], opening["data"]["black_die"] = opening["data"]["black_die"], opening["data"]["white_die"]
    cut = copy()
    cut["history"] = cut["history"][: rolls[-1]]
    cut["last_seq"] = len(cut["history"]) - 1
    played = copy()
    plays = [e for e in played["history"] if e["kind"] == "play" and e["data"]["play"]]
    plays[0]["action"] = plays[0]["action"].split(" play ")[0] + " play 24/1"
    for forged in (changed_roll, relabelled, opener, cut, played):
        forged["digest"] = digest_of(forged["history"])
    return {"a changed roll": changed_roll, "a relabelled roll": relabelled, "a changed opener": opener,
            "the last roll deleted": cut, "a changed play": played}


def test_dice_proof_checks_out_with_verify_dice_and_a_forgery_does_not(http, tmp_path):
    alice, bob, match = invited(http)
    bob.accept(match["id"])
    final = play_out({"alice": alice, "bob": bob}, match["id"], random.Random(8))
    path = tmp_path / "match.json"
    path.write_text(json.dumps(final))
    run = subprocess.run([sys.executable, "-m", "gammon", "verify-dice", str(path)], capture_output=True, text=True)
    assert run.returncode == 0 and "rolls regenerated" in run.stdout, run.stderr
    assert verify_match(final).rolls == sum(e["kind"] in ("roll", "opening") for e in final["history"])
    for what, forged in _forgeries(final).items():
        with pytest.raises(DiceProofError):
            verify_match(forged)
            pytest.fail(f"{what} passed")
        untouched = dict(forged, digest=final["digest"])  # the published digest no longer fits either
        with pytest.raises(DiceProofError, match="digest|missing"):
            verify_match(untouched)
    path.write_text(json.dumps(_forgeries(final)["a changed roll"]))
    run = subprocess.run([sys.executable, "-m", "gammon", "verify-dice", str(path)], capture_output=True, text=True)
    assert run.returncode == 1 and "FAILED" in run.stderr and "Traceback" not in run.stderr
    path.write_text("{}")
    run = subprocess.run([sys.executable, "-m", "gammon", "verify-dice", str(path)], capture_output=True, text=True)
    assert run.returncode != 0 and "dice_proof" in run.stderr and "Traceback" not in run.stderr


def _restamp(record: dict) -> dict:
    """A record edited as a forger would: its numbering and digest made to fit again."""
    record["last_seq"] = len(record["history"]) - 1
    record["digest"] = digest_of(record["history"])
    return record


def test_a_dice_scheme_changed_in_the_database_rolls_nothing_and_verifies_nothing(http):
    alice, bob = people(http, "alice", "bob")
    runtime = http.app.state.runtime
    shown = http.post("/api/commitments", headers=alice.headers).json()
    match = http.post("/api/matches", json={"opponent": "bob", "length": 1, "seed": "alices-own",
                                            "commitment": shown["token"]}, headers=alice.headers).json()
    assert match["dice_proof"]["scheme"] == 3 and match["dice_proof"]["commitment"] == shown["commitment"]
    # the operator's downgrade before acceptance: the server (as after a restart) rolls nothing under it
    with runtime.database.begin() as connection:
        connection.execute(text("UPDATE matches SET dice_scheme = 1 WHERE id = :id"), {"id": match["id"]})
    runtime.service.live.drop(match["id"])
    refused = http.post(f"/api/matches/{match['id']}/accept", json={"seed": "bobs-own"}, headers=bob.headers)
    assert refused.status_code == 422 and "dice do not check out" in refused.json()["detail"], refused.text
    with runtime.database.begin() as connection:  # and with the player's seed wiped as well: the commitment tells
        connection.execute(text("UPDATE matches SET challenger_seed = NULL WHERE id = :id"), {"id": match["id"]})
    runtime.service.live.drop(match["id"])
    refused = http.post(f"/api/matches/{match['id']}/accept", json={"seed": "bobs-own"}, headers=bob.headers)
    assert refused.status_code == 422 and "commitment" in refused.json()["detail"], refused.text
    # a finished match's record downgraded, step by step as far as a forger can go
    other = http.post("/api/matches", json={"opponent": "bob", "length": 1, "seed": "alices-own",
                                            "commitment": http.post("/api/commitments", headers=alice.headers).json()["token"]},
                      headers=alice.headers).json()["id"]
    http.post(f"/api/matches/{other}/accept", json={"seed": "bobs-own"}, headers=bob.headers)
    final = play_out({"alice": alice, "bob": bob}, other, random.Random(4))
    assert final["history"][0]["data"]["dice"] == {"scheme": 3, "commitment": final["dice_proof"]["commitment"]}
    assert verify_match(final, shown=final["dice_proof"]["commitment"]).drawn == ()
    seed = bytes.fromhex(final["dice_proof"]["seed"])
    downgraded = json.loads(json.dumps(final))
    downgraded["dice_proof"].update(scheme=1)
    with pytest.raises(DiceProofError, match="scheme"):  # the challenge named scheme 3
        verify_match(downgraded)
    downgraded["dice_proof"].update(challenger_seed=None, opponent_seed=None, commitment=commitment(seed, 1))
    with pytest.raises(DiceProofError, match="event 0"):
        verify_match(downgraded)
    del downgraded["history"][0]["data"]["dice"]  # the first event rewritten and the digest chain made again
    _restamp(downgraded)
    with pytest.raises(DiceProofError):  # the dice now follow from the seed alone: the replay breaks
        verify_match(downgraded)
    with pytest.raises(DiceProofError, match="you were shown"):  # and the commitment its player saw is not this one
        verify_match(downgraded, shown=final["dice_proof"]["commitment"])


def test_a_match_of_an_older_scheme_is_verified_as_what_it_is_and_no_more(http):
    """A scheme-2 record (the commitment the bare SHA-256 of the seed, the challenge naming no scheme),
    made here as an operator rewriting every trace of scheme 3 before acceptance would make it."""
    alice, bob = people(http, "alice", "bob")
    runtime = http.app.state.runtime
    shown = http.post("/api/commitments", headers=alice.headers).json()
    match = http.post("/api/matches", json={"opponent": "bob", "length": 1, "seed": "alices-own",
                                            "commitment": shown["token"]}, headers=alice.headers).json()["id"]
    with runtime.database.begin() as connection:
        seed = bytes.fromhex(connection.execute(select(MATCHES.c.seed).where(MATCHES.c.id == match)).scalar_one())
        first = connection.execute(select(EVENTS).where(EVENTS.c.match_id == match, EVENTS.c.seq == 0)).one()._asdict()
        data = {key: value for key, value in first["data"].items() if key != "dice"}
        connection.execute(update(EVENTS).where(EVENTS.c.id == first["id"]).values(data=data))
        connection.execute(update(MATCHES).where(MATCHES.c.id == match).values(
            dice_scheme=2, commitment=commitment(seed, 2), digest=chain(None, {**first, "data": data})))
    runtime.service.live.drop(match)
    http.post(f"/api/matches/{match}/accept", json={"seed": "bobs-own"}, headers=bob.headers)
    final = play_out({"alice": alice, "bob": bob}, match, random.Random(2))
    verified = verify_match(final)  # consistent in itself: verified, but only as scheme 2 can be
    assert verified.scheme == 2 and any("scheme 2" in line for line in verified.unproved + verified.proved)
    with pytest.raises(DiceProofError, match="you were shown"):  # alice's client was shown a scheme-3 commitment
        verify_match(final, shown=shown["commitment"])


def test_verify_dice_replays_every_variant_and_a_match_lost_on_time(http, tmp_path):
    alice, bob = people(http, "alice", "bob")
    players = {"alice": alice, "bob": bob}
    for variant in ("nackgammon", "two-move-doubles", "nackgammon,two-move-doubles"):
        # The server's dice are its own: a two-move match is played again until a double shows its rule
        # replayed (a one-point match rolls no double about one time in twenty).
        for _ in range(8):
            match = http.post("/api/matches", json={"opponent": "bob", "length": 1, "options": {"variant": variant}},
                              headers=alice.headers).json()["id"]
            bob.accept(match)
            final = play_out(players, match, random.Random(5))
            assert final["status"] == "finished"
            verified = verify_match(final)
            assert verified.rolls == sum(e["kind"] in ("roll", "opening") for e in final["history"]), variant
            assert verified.drawn == ("challenger", "opponent")  # nobody sent a seed: the proof says so
            assert any("server's seed alone" in line for line in verified.proved)
            doubled = any(e["kind"] == "roll" and len(set(e["data"]["dice"])) == 1 for e in final["history"])
            if doubled or "two-move" not in variant:
                break
        assert doubled or "two-move" not in variant, variant
    # the person to act stays away (or runs out of time): the timeout event ends the match
    match = alice.challenge("bob", length=3)["id"]
    bob.accept(match)
    for _ in range(4):  # a few turns, rolled and played
        state = alice.match(match)
        body = {"action": "play", "play": state["legal"][0]} if "play" in state["actions"] else {"action": "roll"}
        players[state["players"][state["to_act"]]].act(match, version=state["version"], **body)
    service = http.app.state.runtime.service
    assert http.portal.call(service.abandon, match, utcnow(), utcnow() + dt.timedelta(days=1)) is not None
    final = alice.match(match, history=True)
    assert final["status"] == "finished" and [e["kind"] for e in final["history"]][-2:] == ["timeout", "match_over"]
    verified = verify_match(final)
    assert "stayed away" in verified.proved[0] and any("clock" in line for line in verified.unproved)
    path = tmp_path / "match.json"
    path.write_text(json.dumps(final))
    run = subprocess.run([sys.executable, "-m", "gammon", "verify-dice", str(path)], capture_output=True, text=True)
    assert run.returncode == 0 and "not proved" in run.stdout, run.stderr
    lying = json.loads(json.dumps(final))  # the other side said to have run out of time
    lying["history"][-2]["color"] = "white" if lying["history"][-2]["color"] == "black" else "black"
    with pytest.raises(DiceProofError, match="ran out of time"):
        verify_match(_restamp(lying))


def test_a_cut_record_or_one_whose_status_the_events_do_not_give_is_refused(http):
    alice, bob, match = invited(http)
    bob.accept(match["id"])
    final = play_out({"alice": alice, "bob": bob}, match["id"], random.Random(9))
    verify_match(final)

    def forged(change) -> dict:
        record = json.loads(json.dumps(final))
        change(record)
        for number, event in enumerate(record["history"]):
            event["seq"] = number
        return _restamp(record)

    def cut_to_the_last_play(record: dict) -> None:
        while record["history"][-1]["kind"] != "play":
            record["history"].pop()
        record["score"] = {"white": 0, "black": 0}

    forgeries = {
        "cut, status playing": lambda r: (cut_to_the_last_play(r), r.update(status="playing")),
        "cut, status expired": lambda r: (cut_to_the_last_play(r), r.update(status="expired")),
        "cut, status finished": cut_to_the_last_play,
        "the end cut": lambda r: r["history"].pop(),
        "an event after the end": lambda r: r["history"].append(dict(r["history"][-1], seq=len(r["history"]))),
        "a score that does not end it": lambda r: (r["history"][-1]["data"].update(score=[1, 1]),
                                                   r.update(score={"white": 1, "black": 1})),
        "the other winner": lambda r: r.update(winner="bob" if final["winner"] == "alice" else "alice"),
        "declined, yet finished": lambda r: r["history"].insert(1, {**r["history"][1], "kind": "decline"}),
    }
    for what, change in forgeries.items():
        with pytest.raises(DiceProofError):
            verify_match(forged(change))
            pytest.fail(f"{what} passed")
    unstamped = json.loads(json.dumps(final))
    unstamped["digest"] = None  # a match of scheme 2 or later always publishes its digest
    with pytest.raises(DiceProofError, match="digest"):
        verify_match(unstamped)


def test_a_bot_match_and_a_rematch_mix_seeds_fixed_before_the_humans(http):
    alice = people(http, "alice")[0]
    shown = http.post("/api/commitments", headers=alice.headers).json()
    created = http.post("/api/matches", json={"opponent": "bot:random", "length": 1, "seed": "alices-own",
                                              "commitment": shown["token"]}, headers=alice.headers).json()
    proof = created["dice_proof"]
    # the bot's seed follows from the commitment alice was shown before she sent hers: nobody picked it after
    assert proof["commitment"] == shown["commitment"] and proof["challenger_seed"] == "alices-own"
    assert proof["opponent_seed"] == drawn_seed(shown["commitment"], "opponent") and proof["drawn"] == ["opponent"]
    final = play_out({"alice": alice}, created["id"], random.Random(3))
    verified = verify_match(final, shown=shown["commitment"])
    assert verified.drawn == ("opponent",) and any("alices-own" in line for line in verified.proved)
    ground = json.loads(json.dumps(final))  # a bot's seed the server chose after seeing alice's
    ground["dice_proof"]["opponent_seed"] = "ground-until-it-suits"
    with pytest.raises(DiceProofError, match="bot"):
        verify_match(ground)
    # a rematch takes the challenger's seed with a commitment, as a challenge does
    again = http.post("/api/commitments", headers=alice.headers).json()
    rematch = http.post(f"/api/matches/{created['id']}/rematch", json={"seed": "alices-next", "commitment": again["token"]},
                        headers=alice.headers)
    assert rematch.status_code == 201, rematch.text
    proof = rematch.json()["dice_proof"]
    assert proof["challenger_seed"] == "alices-next" and proof["commitment"] == again["commitment"]
    assert proof["opponent_seed"] == drawn_seed(again["commitment"], "opponent")
    # a seed without a commitment would be seen before the server commits: refused, for a challenge and a rematch
    for path, body in ((f"/api/matches/{created['id']}/rematch", {"seed": "too-early"}),
                       ("/api/matches", {"opponent": "bot:random", "length": 1, "seed": "too-early"})):
        answer = http.post(path, json=body, headers=alice.headers)
        assert answer.status_code == 422 and "commitment" in answer.json()["detail"], answer.text


def test_the_openapi_document_is_served(http):
    document = http.get("/api/openapi.json").json()
    for path in ("/api/users", "/api/sessions", "/api/matches", "/api/matches/{match_id}/actions", "/api/toplist"):
        assert path in document["paths"]


def test_hints_and_cube_hints_only_where_the_match_allows_them_and_only_for_the_side_to_act(http):
    alice, bob = people(http, "alice", "bob")
    plain = alice.challenge("bob", length=3)
    bob.accept(plain["id"])
    helped = alice.challenge("bob", length=3, hints=True, cube_hints=True)
    state = bob.accept(helped["id"])
    players = {"alice": alice, "bob": bob}
    mover = players[state["players"][state["to_act"]]]
    other = bob if mover is alice else alice
    assert http.get(f"/api/matches/{plain['id']}/hint", headers=mover.headers).status_code == 403
    assert http.get(f"/api/matches/{helped['id']}/hint", headers=other.headers).status_code == 403
    http.cookies.clear()
    assert http.get(f"/api/matches/{helped['id']}/hint").status_code == 401
    answer = http.get(f"/api/matches/{helped['id']}/hint", headers=mover.headers)
    assert answer.status_code == 200, answer.text
    plays = answer.json()["plays"]
    assert sorted(p["play"] for p in plays) == sorted(state["legal"]) and plays[0]["loss"] == 0
    assert all(a["equity"] >= b["equity"] for a, b in itertools.pairwise(plays))
    assert http.get(f"/api/matches/{helped['id']}/cube_hint", headers=mover.headers).status_code == 422  # rolled
    state = mover.act(helped["id"], action="play", play=plays[0]["play"])
    cube = http.get(f"/api/matches/{helped['id']}/cube_hint", headers=other.headers)
    assert cube.status_code == 200 and cube.json()["action"] and isinstance(cube.json()["double"], bool)
    assert http.get(f"/api/matches/{helped['id']}/hint", headers=other.headers).status_code == 422  # not rolled


@pytest.mark.parametrize("body", [b"", b"[]", b'"alice"', b"\xff\xfe\x00garbage", b'{"name": null}', b"{" * 5000,
                                  b'{"name": "' + b"a" * 70000 + b'"}', b"nan", b'{"name": "x", "password": 1e999}'])
def test_malformed_bodies_get_a_clear_4xx_and_the_server_stays_up(http, body):
    answer = http.post("/api/users", content=body, headers={"content-type": "application/json"})
    assert 400 <= answer.status_code < 500 and answer.json()["detail"]
    assert http.get("/api/toplist").status_code == 200
