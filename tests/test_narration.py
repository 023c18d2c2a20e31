"""The narrator tells a play with the one move-text writer, in the listener's numbering or the mover's."""

from __future__ import annotations

import pytest

from gammon.narration import play_in_numbering
from gammon.play import Move, Play
from gammon.position import Color


@pytest.mark.parametrize(("moves", "own", "theirs"), [
    ([Move(24, 18), Move(18, 13)], "24/13", "1/12"),  # one checker running: one path, as either side writes it
    ([Move(13, 9), Move(9, 5, True), Move(6, 2, True), Move(6, 2)], "13/5* 6/2*(2)", "12/20* 19/23*(2)"),
    ([Move(25, 22), Move(6, 0)], "bar/22 6/off", "bar/3 19/off"),
    ([Move(8, 5), Move(8, 5), Move(6, 3), Move(6, 3)], "8/5(2) 6/3(2)", "17/20(2) 19/22(2)"),
])
def test_a_play_is_told_in_the_one_canonical_form_in_either_numbering(moves: list[Move], own: str, theirs: str) -> None:
    play = Play(tuple(moves))
    assert play_in_numbering(play, Color.BLACK, None) == own == str(play)
    assert play_in_numbering(play, Color.BLACK, Color.BLACK) == own
    assert play_in_numbering(play, Color.BLACK, Color.WHITE) == theirs
