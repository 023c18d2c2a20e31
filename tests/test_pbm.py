"""The play-by-mail server's move syntax, in the board's fixed frame."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon import BLACK, WHITE, IllegalPlayError, InvalidMoveError, Position
from gammon.notation import pbm

OPENING_O = Position(turn=BLACK)  # ohs on roll: ohs' numbering is the fixed frame
OPENING_X = Position(turn=WHITE)


@pytest.mark.parametrize(
    "text",
    [
        "13-10,13-10,10-7,10-7",
        "2(13-10),2(10-7)",
        "13:3,13:3,10:3,10:3",
        "13-10(2),10-7(2)",  # gammon rule: the count may follow the item
        " 2( 13 - 10 ) , 10:3 , 10-7 ",
        "13-7,13-7",
        "2(13-7)",
    ],
)
def test_seed_double_three(text: str) -> None:
    play = pbm.parse_play(text, OPENING_O, (3, 3))
    assert str(play) == "13/7(2)"


def test_eks_moves_up_the_fixed_frame() -> None:
    # X's back checkers start on 1 (its 24-point) and its mid-point is 12 (its 13-point).
    assert str(pbm.parse_play("1-7,12-15", OPENING_X, (6, 3))) == "24/18 13/10"
    assert str(pbm.parse_play("1-10", OPENING_X, (6, 3))) == "24/15"
    assert str(pbm.parse_play("1:6,12:3", OPENING_X, (6, 3))) == "24/18 13/10"
    with pytest.raises(InvalidMoveError, match="eks moves up"):
        pbm.parse_play("12-9", OPENING_X, (3, 1))


def test_ohs_in_its_own_numbering() -> None:
    assert str(pbm.parse_play("24-18,13-10", OPENING_O, (6, 3))) == "24/18 13/10"
    with pytest.raises(InvalidMoveError, match="ohs moves down"):
        pbm.parse_play("1-7", OPENING_O, (6, 1))


def test_entering_from_the_bar() -> None:
    # O on the bar: its entry points are 19-24.
    position = Position.from_checkers([0] * 25, [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                 0, 1], BLACK)
    play = pbm.parse_play("B-22,13-12", position, (3, 1))
    assert str(play) == "bar/22 13/12"
    for text in ("22,13-12", "b:3,13:1", "b-22,13-12", "13-12,B-22"):
        assert pbm.parse_play(text, position, (3, 1)) == play
    # X on the bar enters on 1-6.
    white = Position.from_checkers([0] * 12 + [14] + [0] * 11 + [1], [0] * 5 + [2] + [0] * 19, WHITE)
    assert str(pbm.parse_play("4,12-13", white, (4, 1))) == "bar/21 13/12"


def test_bearing_off() -> None:
    position = Position.from_checkers([0] * 25, [1, 0, 2] + [0] * 22, BLACK)
    play = pbm.parse_play("3-H,3-H,1-H", position, (3, 3))
    assert str(play) == "3/off(2) 1/off"
    for text in ("3,3,1", "2(3),1-h", "3:3,3:3,1:3", "2(3:3),1"):
        assert pbm.parse_play(text, position, (3, 3)) == play
    # X bears off past 24: its 22 is its 3-point.
    white = Position.from_checkers([0, 0, 1] + [0] * 22, [0] * 12 + [15] + [0] * 12, WHITE)
    assert str(pbm.parse_play("22", white, (5, 2))) == "3/off"


def test_format_round_trip() -> None:
    play = pbm.parse_play("13-10,13-10,10-7,10-7", OPENING_O, (3, 3))
    assert pbm.format_play(play, BLACK) == "2(13-10),2(10-7)"
    play = pbm.parse_play("1-7,7-10", OPENING_X, (6, 3))
    assert pbm.format_play(play, WHITE) == "1-7,7-10"


def test_illegal() -> None:
    with pytest.raises(IllegalPlayError, match="legal"):
        pbm.parse_play("13-10", OPENING_O, (3, 3))
    with pytest.raises(IllegalPlayError):
        pbm.parse_play("13:5", OPENING_O, (3, 1))


@pytest.mark.parametrize(
    "text", ["13-", "-10", "x-3", "13:7", "13:0", "25-3", "3-13", "5(13-10)", "13-10,,10-7", "13-10(1)", "H-3",
             "13-B", "2(13-10", "13-10)", "13--10", "b", "h", "13:3:3"],
)
def test_malformed(text: str) -> None:
    with pytest.raises(InvalidMoveError, match="bad move"):
        pbm.parse_play(text, OPENING_O, (3, 3))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789-:,()bhBHx ", max_size=20), st.integers(1, 6), st.integers(1, 6))
def test_garbage_raises_only_move_errors(text: str, d1: int, d2: int) -> None:
    try:
        pbm.parse_play(text, OPENING_O, (d1, d2))
    except (InvalidMoveError, IllegalPlayError):
        pass
