"""The Position value type: construction, validation, views and classification."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon import BLACK, WHITE, Color, InvalidPositionError, NotationError, Position, PositionClass

VECTORS = Path(__file__).parent / "vectors"


def test_opening_position() -> None:
    p = Position()
    assert p.position_id() == "4HPwATDgc/ABMA"
    assert p.pips() == (167, 167)
    assert p.turn == WHITE
    assert p.classify() is PositionClass.CONTACT
    assert p.borne_off(WHITE) == p.borne_off(BLACK) == 0
    assert eval(repr(p)) == p  # the repr is meant to paste back


@pytest.mark.parametrize("path", sorted((VECTORS / "ids").glob("*.json")), ids=lambda p: p.stem)
def test_vectors(path: Path) -> None:
    vector = json.loads(path.read_text())
    p = Position(vector["position_id"])
    roller, opponent = vector["board_roller_view"][1], vector["board_roller_view"][0]
    assert list(p.board) == vector["signed26_roller_view"]
    assert p.checkers(p.turn) == tuple(roller)
    assert p.checkers(p.turn.other) == tuple(opponent)
    assert p.pips() == (vector["pips"]["roller"], vector["pips"]["opponent"])
    assert p.borne_off(p.turn) == vector["off"]["roller"]
    assert p.flip().position_id() == vector["position_id_opponent_on_roll"]
    expected_class = {"contact": PositionClass.CONTACT, "bearoff1": PositionClass.BEAROFF}
    assert p.classify() is expected_class[vector["gnubg_classify"]]


def test_validation_names_the_problem() -> None:
    with pytest.raises(InvalidPositionError, match="16 checkers"):
        Position.from_checkers([16] + [0] * 24, [0] * 25)
    with pytest.raises(InvalidPositionError, match="both sides"):
        Position.from_checkers([1] + [0] * 24, [0] * 23 + [1, 0])
    with pytest.raises(InvalidPositionError, match="negative"):
        Position.from_checkers([-1] + [0] * 24, [0] * 25)
    with pytest.raises(InvalidPositionError, match="26 entries"):
        Position([0] * 25)
    with pytest.raises(InvalidPositionError, match="at most 15"):
        Position([0] + [2] * 8 + [0] * 17)
    with pytest.raises(NotationError, match="Position ID"):
        Position("not an id")
    with pytest.raises(NotationError, match="key"):
        Position("//////////////")


def test_what_is_not_a_board_is_an_invalid_position_naming_what_was_expected() -> None:
    """``Position(123)`` was a bare TypeError (issue 13)."""
    for value in (123, 1.5, b"4HPwATDgc/ABMA", {0: 1}, object()):
        with pytest.raises(InvalidPositionError, match="26 checker counts .* or a Position ID"):
            Position(value)  # type: ignore[arg-type]
    for board in ([0.5] * 26, ["1"] * 26, [None] * 26, [True] + [0] * 25):
        with pytest.raises(InvalidPositionError, match="at index 0"):
            Position(board)  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError, match="25 checker counts"):
        Position.from_checkers(7, [0] * 25)  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError, match="at index 3"):
        Position.from_checkers([0, 0, 0, "x"] + [0] * 21, [0] * 25)  # type: ignore[list-item]
    import numpy as np

    assert Position(np.array(Position().board, np.int64)) == Position()  # any integer type is a count


def test_moves_and_dice_of_the_wrong_type_are_refused_by_name() -> None:
    from gammon.errors import IllegalPlayError, InvalidMoveError
    from gammon.play import Move

    for source, target in ((True, 0), ("13", 8), (13.0, 8), (13, None)):
        with pytest.raises(InvalidMoveError, match="point number"):
            Move(source, target)  # type: ignore[arg-type]
    for dice in ((True, 1), (3.5, 1), ("3", 1), (3, None)):
        with pytest.raises(IllegalPlayError, match="die must be 1-6"):
            Position().legal_plays(*dice)  # type: ignore[arg-type]


def test_race_and_bearoff_classes() -> None:
    race = Position.from_checkers([0] * 9 + [15] + [0] * 15, [0] * 9 + [15] + [0] * 15)
    assert race.classify() is PositionClass.RACE
    bearoff = Position.from_checkers([3] * 5 + [0] * 20, [5] * 3 + [0] * 22)
    assert bearoff.classify() is PositionClass.BEAROFF
    over = Position.from_checkers([0] * 25, [1] + [0] * 24)
    assert over.classify() is PositionClass.OVER and over.winner() == WHITE


counts = st.lists(st.integers(0, 15), min_size=25, max_size=25)


@st.composite
def positions(draw: st.DrawFn) -> Position:
    white = [0] * 25
    black = [0] * 25
    for side in (white, black):
        for _ in range(draw(st.integers(0, 15))):
            side[draw(st.integers(0, 24))] += 1
    for i in range(24):
        if white[i] and black[23 - i]:
            black[23 - i] = 0
    return Position.from_checkers(white, black, draw(st.sampled_from([WHITE, BLACK])))


@settings(max_examples=200, deadline=None)
@given(positions())
def test_views_and_ids_round_trip(p: Position) -> None:
    assert p.flip().flip() == p
    assert p.flip().turn == p.turn.other
    assert p.flip().pips() == p.pips()[::-1]
    for color in Color:
        assert p.flip().checkers(color) == p.checkers(color)
    assert Position(p.position_id(), p.turn) == p
    assert eval(repr(p)) == p
    assert hash(Position(p.board, p.turn)) == hash(p)
