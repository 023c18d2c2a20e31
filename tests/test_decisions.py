"""A bot's turn decided in one place (gammon.players.decisions), for every host."""

from __future__ import annotations

from gammon import Color, GameState, Position
from gammon.players import load_player
from gammon.players.decisions import decide
from gammon.state import Resignation

OPENING_MONEY = GameState.from_gnubg_id("4HPwATDgc/ABMA:cAkAAAAAAAAA")


def test_each_kind_of_turn_gets_its_kind_of_answer():
    bot = load_player("pubeval")
    assert decide(bot, OPENING_MONEY, may_double=False).kind == "roll"
    assert decide(bot, OPENING_MONEY, may_double=True).kind == "roll"  # nobody doubles at the start
    rolled = OPENING_MONEY.replace(dice=(3, 1))
    decision = decide(bot, rolled, may_double=True)
    assert decision.kind == "play" and decision.play in rolled.position.legal_plays(3, 1)
    doubled = OPENING_MONEY.replace(double_offered=True)
    assert decide(bot, doubled, may_double=False).kind == "take"  # an opening double is an easy take
    resigned = OPENING_MONEY.replace(resignation=Resignation.BACKGAMMON)
    assert decide(bot, resigned, may_double=False).kind == "accept"  # 3 points at the start: accept


def test_a_hopeless_double_is_dropped_and_a_cheap_resignation_rejected():
    # white, on roll, has one checker left, on its 1-point; black has all 15 on its 20-point
    # (white's 5-point, in white's home board)
    white = [1] + [0] * 24
    black = [0] * 19 + [15] + [0] * 5
    race = GameState(position=Position.from_checkers(white, black, Color.WHITE))
    bot = load_player("pubeval")
    assert decide(bot, race.replace(double_offered=True), may_double=False).kind == "drop"
    # black, on roll there, offers a single game while it is losing a backgammon: rejected
    # (by the net: pubeval estimates no gammons)
    bot = load_player("nn")
    doomed = GameState(position=Position.from_checkers(white, black, Color.BLACK), resignation=Resignation.SINGLE)
    assert decide(bot, doomed, may_double=False).kind == "reject"
