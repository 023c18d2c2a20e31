"""Fuzz target: move text against the legal plays of a roll (``in``, ``LegalPlays.find``,
``parse_ubgi``, ``Position.apply``).

Input: an optional first line ``POSITIONID D1 D2``, then the move text; without that line the
whole input is the move text, for a position and roll chosen by the input.
"""

from __future__ import annotations

import _harness
from _checks import POSITIONS, pick

from gammon import Position
from gammon.errors import GammonError
from gammon.play import Play


def setup(data: bytes) -> tuple[Position, tuple[int, int], str]:
    """The position, the roll and the text of an input (see the module's docstring)."""
    text = _harness.text(data)
    head, newline, rest = text.partition("\n")
    words = head.split()
    if newline and len(words) == 3 and all(w in "123456" and len(w) == 1 for w in words[1:]):
        try:
            return Position.from_position_id(words[0]), (int(words[1]), int(words[2])), rest
        except GammonError:
            pass
    dice = pick(data[::-1], tuple((a, b) for a in range(1, 7) for b in range(1, 7)))
    return Position.from_position_id(pick(data, POSITIONS)), dice, text


def fuzz_one_input(data: bytes) -> None:
    position, dice, text = setup(data)
    legal = position.legal_plays(*dice)
    try:
        inside = text in legal
    except Exception as error:  # noqa: BLE001 - `in` answers True or False, whatever the text
        raise _harness.violation(f"{text!r} in legal plays of {dice} raised {error!r}") from None
    if not isinstance(inside, bool):
        raise _harness.violation(f"{text!r} in legal plays answered {inside!r}")
    for line in (text, *text.splitlines()[:3]):
        check_found(position, dice, legal, line)
    try:
        play = legal.parse_ubgi(text)
    except GammonError:
        pass
    else:
        if legal.parse_ubgi(play.ubgi()) != play:
            raise _harness.violation(f"UBGI {text!r}: {play.ubgi()!r} reads back as another play")
    try:
        moves = Play.parse(text)
    except GammonError:
        return
    written = str(moves)
    try:
        Play.parse(written)
    except Exception as error:  # noqa: BLE001
        raise _harness.violation(f"move text {text!r} is written {written!r}, which is refused: {error!r}") from None


def check_found(position: Position, dice: tuple[int, int], legal, text: str) -> None:
    try:
        play = legal.find(text)
    except GammonError:
        return
    if text not in legal:
        raise _harness.violation(f"{text!r}: find() finds {play} but `in` says it is not a legal play")
    after = position.apply(text, dice)
    if after != position.apply(play, dice):
        raise _harness.violation(f"{text!r}: Position.apply and LegalPlays.find disagree")
    if legal.find(str(play)) != play:
        raise _harness.violation(f"{text!r}: the play {play} it finds is written {str(play)!r}, another play")


if __name__ == "__main__":
    _harness.main(__file__)
