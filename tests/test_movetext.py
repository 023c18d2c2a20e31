"""Standard move notation: canonical writing, every short form read back, errors named."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gammon import AmbiguousPlayError, IllegalPlayError, InvalidMoveError, Move, Play, Position
from gammon.notation import movetext


def board(mover: dict[int, int], opponent: dict[int, int] | None = None) -> Position:
    """A position with the side to act's checkers and the opponent's, both in the mover's numbering.

    Key 25 is the mover's bar; key 0 the opponent's bar. Opponent counts are positive here.
    """
    values = [0] * 26
    for point, count in mover.items():
        values[point] = count
    for point, count in (opponent or {}).items():
        values[point] = -count
    return Position(values)


OPENING = Position()


def find(text: str, position: Position, d1: int, d2: int) -> Play:
    return position.legal_plays(d1, d2).find(text)


# -- writing ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("moves", "text"),
    [
        ([Move(8, 5), Move(6, 5)], "8/5 6/5"),
        ([Move(6, 5), Move(8, 5)], "8/5 6/5"),
        ([Move(24, 18), Move(18, 13)], "24/13"),
        ([Move(24, 18, True), Move(18, 13)], "24/18*/13"),
        ([Move(13, 10), Move(13, 10), Move(10, 7), Move(10, 7)], "13/7(2)"),
        ([Move(13, 10), Move(10, 7), Move(13, 10), Move(8, 5)], "13/10 13/7 8/5"),
        ([Move(13, 7, True), Move(13, 7)], "13/7*(2)"),
        ([Move(25, 22), Move(22, 16, True)], "bar/16*"),
        ([Move(25, 22, True), Move(13, 7)], "bar/22* 13/7"),
        ([Move(6, 0), Move(6, 0), Move(5, 0), Move(5, 0)], "6/off(2) 5/off(2)"),
        ([Move(6, 4), Move(4, 2), Move(2, 0)], "6/off"),
        ([], ""),
    ],
)
def test_format(moves: list[Move], text: str) -> None:
    assert movetext.format_play(moves) == text
    assert str(Play(tuple(moves))) == text


def test_opening_plays_are_canonical() -> None:
    texts = {str(p) for p in OPENING.legal_plays(3, 1)}
    assert {"8/5 6/5", "24/20", "24/23 13/10", "13/9"} <= texts
    assert {str(p) for p in OPENING.legal_plays(6, 5)} >= {"24/13", "13/8 13/7", "24/18 13/8"}
    assert str(find("24/18 18/13", OPENING, 6, 5)) == "24/13"


# -- reading ------------------------------------------------------------------------------------
def test_short_forms_of_one_checker() -> None:
    play = find("24/13", OPENING, 6, 5)
    for text in ("24/18/13", "24/18 18/13", "18/13 24/18", " 24/13 "):
        assert find(text, OPENING, 6, 5) == play


def test_repeats_and_ubgi() -> None:
    play = find("13/7(2)", OPENING, 3, 3)
    for text in ("13/10(2) 10/7(2)", "13/10 13/10 10/7 10/7", "13/10 (2) 10/7 (2)", "10/7 10/7 13/10 13/10", "13/7 13/7"):
        assert find(text, OPENING, 3, 3) == play
    assert find(play.ubgi(), OPENING, 3, 3) == play


def test_case_commas_and_extra_space() -> None:
    assert find(" 8/5,  6/5 ", OPENING, 3, 1) == find("8/5 6/5", OPENING, 3, 1)


def test_hits_with_or_without_star() -> None:
    position = board({24: 2, 13: 5, 6: 5}, {18: 1, 1: 2})
    hitting = find("24/18*/13", position, 6, 5)
    assert str(hitting) == "24/18*/13"
    assert find("24/18/13", position, 6, 5) == hitting
    assert find("24/18 18/13", position, 6, 5) == hitting
    quiet = find("24/13", position, 6, 5)  # the jump names no point: the way that does not hit
    assert quiet != hitting and str(quiet) == "24/13"
    assert find("24/19/13", position, 6, 5) == quiet
    assert find("13/7 13/8", position, 6, 5) == find("13/8 13/7", position, 6, 5)


def test_star_where_there_is_no_blot() -> None:
    with pytest.raises(IllegalPlayError, match="no blot"):
        find("24/18* 13/8", OPENING, 6, 5)


def test_bar_and_off_spellings() -> None:
    position = board({25: 1, 6: 4, 5: 3}, {20: 2})
    play = find("bar/22 6/1", position, 3, 5)
    for text in ("25/22 6/1", "b/22 6/1", "BAR/22 6/1", "6/1 bar/22"):
        assert find(text, position, 3, 5) == play
    home = board({6: 2, 2: 1})
    off = find("6/off(2) 2/off", home, 6, 6)
    assert str(off) == "6/off(2) 2/off"
    for text in ("6/0(2) 2/0", "6/0 6/0 2/0", "2/off 6/off 6/off", "6/off 6/off 2/off"):
        assert find(text, home, 6, 6) == off
    with pytest.raises(IllegalPlayError):
        find("6/off 6/off", home, 6, 6)  # the third checker must come off too


def test_bear_off_with_a_larger_die() -> None:
    position = board({4: 1, 2: 1})
    play = find("4/off 2/off", position, 6, 5)
    assert str(play) == "4/off 2/off"


def test_pass() -> None:
    closed = board({25: 1, 13: 14}, dict.fromkeys(range(19, 25), 2) | {1: 3})
    legal = closed.legal_plays(6, 5)
    assert legal.is_pass()
    assert legal.find("") == Play()
    assert legal.find("pass") == Play()
    with pytest.raises(IllegalPlayError):
        legal.find("bar/20")
    with pytest.raises(IllegalPlayError, match="plays nothing"):
        OPENING.legal_plays(6, 5).find("")


def test_illegal_names_alternatives() -> None:
    with pytest.raises(IllegalPlayError) as info:
        find("24/21", OPENING, 3, 1)  # one die of a roll that can play both
    assert "8/5 6/5" in str(info.value) and "24/20" in str(info.value)
    assert not isinstance(info.value, AmbiguousPlayError)
    assert len(info.value.legal) == 16
    with pytest.raises(IllegalPlayError):
        find("6/off 6/1", OPENING, 6, 5)  # bearing off before all checkers are home
    with pytest.raises(IllegalPlayError):
        find("13/7 13/7", OPENING, 6, 5)  # a 6 twice with 6-5
    with pytest.raises(IllegalPlayError):
        find("24/13 13/8 8/5 6/5 6/3", OPENING, 6, 5)  # more than four moves


def test_ambiguous_names_candidates() -> None:
    # 6-5 from the 24-point hits on 18 one way and on 19 the other: the jump names neither.
    position = board({24: 2, 13: 5, 6: 5}, {18: 1, 19: 1, 1: 1})
    with pytest.raises(AmbiguousPlayError) as info:
        find("24/13", position, 6, 5)
    message = str(info.value)
    assert "24/18*/13" in message and "24/19*/13" in message
    assert {str(p) for p in info.value.candidates} == {"24/18*/13", "24/19*/13"}
    assert str(find("24/19*/13", position, 6, 5)) == "24/19*/13"


@pytest.mark.parametrize(
    "text",
    ["24/z", "13-", "24-18", "13/10(5)", "13/10(0)", "13/10(x)", "off/3", "3/bar", "13/15", "24//18", "(2)",
     "26/20", "13/7**", "/13", "13/", "6/off/3", "6/off*", "13/10)(", "24/18 ((2)", "7"],
)
def test_malformed_text(text: str) -> None:
    with pytest.raises(InvalidMoveError, match="bad move"):
        find(text, OPENING, 6, 5)


def test_malformed_text_names_the_token() -> None:
    with pytest.raises(InvalidMoveError, match="'24/z'"):
        find("13/8 24/z", OPENING, 6, 5)


def test_parse_moves_is_syntax_only() -> None:
    assert Play.parse("24/18*/13 13/10(2)") == Play(
        (Move(24, 18, True), Move(18, 13), Move(13, 10), Move(13, 10))
    )
    assert Play.parse("24/13") == Play((Move(24, 13),))
    assert Play.parse("bar/22 6/off") == Play((Move(25, 22), Move(6, 0)))
    assert Play.parse("") == Play()
    with pytest.raises(InvalidMoveError):
        Play.parse("13/10(4) 8/5")
    with pytest.raises(InvalidMoveError, match="'x'"):
        Play.parse("13/x")


def test_legal_plays_find_and_contains() -> None:
    legal = OPENING.legal_plays(6, 5)
    assert "24/18/13" in legal and "24/12" not in legal and "garbage" not in legal
    assert str(legal.find("24/18 18/13")) == "24/13"


# -- properties ---------------------------------------------------------------------------------
DICE = st.integers(1, 6)


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """A position reached from the opening by random rolls and random legal plays."""
    position = OPENING
    for _ in range(draw(st.integers(0, 80))):
        legal = position.legal_plays(draw(DICE), draw(DICE))
        after = legal.positions()
        nxt = after[draw(st.integers(0, len(after) - 1))]
        if nxt.winner() is not None:
            break
        position = nxt
    return position


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(), DICE, DICE)
def test_every_legal_play_reads_back(position: Position, d1: int, d2: int) -> None:
    legal = position.legal_plays(d1, d2)
    for play in legal:
        assert legal.find(str(play)) == play, str(play)
        assert legal.find(play.ubgi()) == play, play.ubgi()


TEXT = st.text(alphabet="0123456789/*() ,barofBARFxp-:", max_size=24)


@settings(max_examples=400, deadline=None)
@given(TEXT, DICE, DICE)
def test_garbage_raises_only_move_errors(text: str, d1: int, d2: int) -> None:
    legal = OPENING.legal_plays(d1, d2)
    try:
        play = legal.find(text)
    except (InvalidMoveError, IllegalPlayError):
        return
    assert play in list(legal)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_garbage_parse_moves(text: str) -> None:
    try:
        Play.parse(text)
    except InvalidMoveError:
        pass
