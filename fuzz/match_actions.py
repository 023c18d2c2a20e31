"""Fuzz target: the match's action API (``Match`` methods) with arbitrary arguments, valid ones most of the time.

The input is read as a program: a few bytes set the match up, then each byte picks a method
and its arguments (a legal move, a legal play, or a value of a wrong type). A refused action
must raise one of gammon's errors and change nothing; an action taken with arguments it should
have refused (dice ``(3.5, 1)``, a checker moved from ``True``) is a failure; at the end the
history's text must replay to the same match.
"""

from __future__ import annotations

import _harness
from _match import check_replay, snapshot, unchanged

from gammon import BLACK, WHITE, Match, Play, Resignation, SeededDice
from gammon.errors import GammonError

LENGTHS = (0, 1, 3, 5, 7, 25)
ODD_LENGTHS = (-1, 26, 2.5, "3", True, None, 10**20)
COLORS = (None, None, WHITE, BLACK)
ODD = (0, 1, 2, -1, True, False, 1.5, "white", "", b"x", (3, 1), [3, 1], 2**70, float("nan"), object())
ODD_DICE = ((3.5, 1), (0, 1), (7, 2), (True, 1), ("3", "1"), (3,), (3, 1, 2), [3, 1], "31", (-1, 2), (2**64, 1), 0, None)
KINDS = (*Resignation, 0, 4, "gammon", None, 2.0)
#: Hostile shapes timed in CI (tests/test_fuzz.py): a program stops after 200 actions, so its time
#: stops growing with the input after a few hundred bytes, and each run is slow; a few shapes show it.
GROWTH_SHAPES = 8


def make_match(reader: _harness.Reader) -> Match:
    setup = reader.byte()
    length = reader.choice(ODD_LENGTHS) if setup & 0x80 else reader.choice(LENGTHS)
    money = length == 0
    options = {
        "crawford": bool(setup & 1),
        "jacoby": money and bool(setup & 2),
        "beavers": money and bool(setup & 4),
        "cube_limit": reader.choice((None, None, 1, 2, 8, 64)) if setup & 8 else None,
    }
    if setup & 0x40:  # rules that do not fit the length, or of the wrong type
        options.update(jacoby=bool(setup & 2), cube_limit=reader.choice((None, 0, 3, -2, 1.5, "8")))
    return Match(length, dice=SeededDice(reader.byte()), **options)


def color(reader: _harness.Reader):
    return reader.choice(ODD) if reader.byte() < 16 else reader.choice(COLORS)


def act(match: Match, reader: _harness.Reader) -> tuple[str, object]:
    """Do one action; returns (what was done, the odd argument it was given, if any)."""
    op = reader.below(16)
    odd = reader.byte() < 24  # about one action in ten gets an argument of the wrong kind
    who = reader.choice(ODD) if odd else reader.choice(COLORS)
    if op == 0:
        dice = reader.choice(ODD_DICE) if odd else reader.choice((None, None, (reader.below(6) + 1, reader.below(6) + 1)))
        got = match.roll(who if odd and reader.byte() & 1 else None, dice=dice)
        if dice is not None:
            good = isinstance(dice, (tuple, list)) and len(dice) == 2 and all(type(d) is int and 1 <= d <= 6 for d in dice)
            if not good:
                raise _harness.violation(f"roll(dice={dice!r}) was accepted and rolled {got}")
        return "roll", dice
    if op in (1, 2, 3, 4, 6, 7, 9, 10):
        name = {1: "double", 2: "take", 3: "beaver", 4: "drop", 6: "accept", 7: "reject", 9: "undo", 10: "commit"}[op]
        getattr(match, name)(who)
        return name, who
    if op == 5:
        kind = reader.choice(KINDS)
        match.resign(kind, who)
        return "resign", kind
    if op == 8:
        source, target = _a_move(match, reader, odd)
        match.move(source, target, who if odd and reader.byte() & 1 else None)
        for value in (source, target):
            if type(value) is not int:
                raise _harness.violation(f"move({source!r}, {target!r}) was accepted")
        return "move", (source, target)
    if op == 11:
        play = _a_play(match, reader, odd)
        match.play(play, who if odd and reader.byte() & 1 else None)
        return "play", play
    if op == 12:
        match.new_game()
        return "new_game", None
    if op == 13:
        from gammon import Action

        match.apply(Action.from_text(_harness.text(reader.chunk())))
        return "apply", None
    if op == 14:
        if not isinstance(match.can_double(who), bool):
            raise _harness.violation("can_double answered something else than True or False")
        return "can_double", who
    snapshot(match)  # every view of the match can be read at any time
    return "look", None


def _a_move(match: Match, reader: _harness.Reader, odd: bool) -> tuple[object, object]:
    if odd:
        return reader.choice((*ODD, 25, 0, 24, 13)), reader.choice((*ODD, 0, 1, 8))
    try:
        plays = match.legal_plays
        play = plays[reader.below(len(plays))]
    except GammonError:
        return reader.below(26), reader.below(26)
    if not play.moves:
        return 25, 0
    move = play.moves[reader.below(len(play.moves))]
    return move.source, move.target


def _a_play(match: Match, reader: _harness.Reader, odd: bool) -> object:
    if odd:
        return reader.choice((*ODD, _harness.text(reader.chunk()), Play(())))
    try:
        plays = match.legal_plays
    except GammonError:
        return "8/5 6/5"
    play = plays[reader.below(len(plays))]
    return play if reader.byte() & 1 else str(play)


def fuzz_one_input(data: bytes) -> None:
    reader = _harness.Reader(data)
    match = make_match(reader)
    for _ in range(200):
        if reader.done:
            break
        before = snapshot(match)
        try:
            act(match, reader)
        except GammonError as error:
            unchanged(match, before, f"an action ({error})")
    check_replay(match)


if __name__ == "__main__":
    _harness.main(__file__)
