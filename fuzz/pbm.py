"""Fuzz target: the play-by-mail move syntax (``gammon.notation.pbm``).

Input as for the ``movetext`` target: an optional ``POSITIONID D1 D2`` line, then the move text.
"""

from __future__ import annotations

import _harness
from movetext import setup

from gammon.errors import GammonError
from gammon.notation import pbm


def fuzz_one_input(data: bytes) -> None:
    position, dice, text = setup(data)
    on_bar = position.bar(position.turn) > 0
    pbm.parse_journeys(text, position.turn, on_bar)
    try:
        play = pbm.parse_play(text, position, dice)
    except GammonError:
        return
    written = pbm.format_play(play, position.turn)
    try:
        again = pbm.parse_play(written, position, dice)
    except Exception as error:  # noqa: BLE001
        raise _harness.violation(f"pbm {text!r} is written {written!r}, which is refused: {error!r}") from None
    if again != play:
        raise _harness.violation(f"pbm {text!r}: {written!r} reads back as {again}, not {play}")


if __name__ == "__main__":
    _harness.main(__file__)
