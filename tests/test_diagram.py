"""Text boards: the ASCII picture and the plain-words version."""

from __future__ import annotations

import re

import pytest

from gammon import BLACK, WHITE, Position
from gammon.diagram import render
from gammon.state import GameState, Resignation


def column(picture: str, label: int, top: bool) -> list[str]:
    """The characters drawn under (or over) a point label, from the edge toward the bar."""
    lines = picture.splitlines()
    label_line = lines[0] if top else lines[14]
    at = re.search(rf"(?<!\d){label}(?!\d)", label_line).end() - 1  # the label's last digit
    rows = lines[2:7] if top else lines[12:7:-1]
    return [row[at - 1 : at + 1].strip() for row in rows]


def test_opening_board() -> None:
    picture = render(Position())
    lines = picture.splitlines()
    assert lines[0].split() == [str(p) for p in range(13, 25)]
    assert lines[14].split() == [str(p) for p in range(12, 0, -1)]
    assert "BAR" in lines[7] and "OFF" in lines[7]
    # White (X) to act is at the bottom: its 6-point holds five X, its 24-point two X (top right).
    assert column(picture, 6, top=False) == ["X"] * 5
    assert column(picture, 8, top=False) == ["X"] * 3 + ["", ""]
    assert column(picture, 24, top=True) == ["X", "X", "", "", ""]
    assert column(picture, 19, top=True) == ["O"] * 5
    assert picture.count("pips 167") == 2
    assert "[1]" in lines[7] and "money game" in picture
    assert picture.splitlines()[-1] == "White (X) on roll, not yet rolled."
    assert max(map(len, lines)) <= 80


def test_perspective_and_tall_stacks() -> None:
    position = Position.from_checkers([0] * 5 + [10] + [0] * 18 + [3], [1, 1, 0, 0, 0, 8] + [0] * 19, turn=BLACK)
    state = GameState(position=position, dice=(6, 2), cube=4, cube_owner=WHITE, score=(3, 5), match_length=7)
    picture = render(state)  # black to act: black at the bottom
    assert column(picture, 6, top=False) == ["O"] * 4 + ["8"]
    assert column(picture, 19, top=True) == ["X"] * 4 + ["10"]
    lines = picture.splitlines()
    assert "X White" in lines[2] and "O Black  (to play 6-2)" in lines[12]
    assert "[4]" in lines[4]  # the cube beside its owner
    assert "score 5" in lines[3] and "score 3" in lines[11] and "7-point match" in picture
    assert "off 5" in lines[11] and "off 2" in lines[3]
    assert lines[2][22:25] == lines[3][22:25] == "   " and lines[4][22:25] == " X "  # 3 on the bar
    flipped = render(state, perspective=WHITE)
    assert column(flipped, 6, top=False) == ["X"] * 4 + ["10"]
    assert "Black (O) to play 6-2." in flipped
    assert max(len(line) for line in flipped.splitlines()) <= 80


def test_offers_and_game_over() -> None:
    doubled = GameState(position=Position(), double_offered=True, cube=2, cube_owner=WHITE, match_length=5, score=(4, 2))
    picture = render(doubled)
    assert "[4] offered" in picture and "(to take or drop)" in picture and "post-Crawford" in picture
    assert "White (X) doubles to 4; Black (O) to take or drop." in picture
    resigning = GameState(position=Position(), resignation=Resignation.GAMMON)
    assert "offers to resign a gammon" in render(resigning)
    finished = Position.from_checkers([0] * 25, [0] * 5 + [3] + [0] * 19, BLACK)
    assert "Game over: White (X) has borne off all checkers." in render(finished)
    assert "all 15" not in render(finished) and "off 15" in render(finished)


def test_plain_opening() -> None:
    lines = render(Position(), plain=True).splitlines()
    assert lines[0] == "White (X) on roll, not yet rolled."
    assert lines[1] == "Points are numbered from White's side: its home board is 1 to 6."
    assert lines[2] == (
        "White (X): 2 checkers on the 24-point, 5 checkers on the 13-point, 3 checkers on the 8-point, "
        "5 checkers on the 6-point."
    )
    assert lines[3].startswith("Black (O): 5 checkers on the 19-point")
    assert lines[4] == "White: 0 on the bar, 0 borne off, pip count 167."
    assert lines[6] == "Cube: 1, centred."
    assert lines[7] == "Money game."
    assert all("|" not in line for line in lines)


def test_plain_match_state() -> None:
    position = Position.from_checkers([1] + [0] * 24, [0] * 22 + [1, 0] + [1], turn=BLACK)
    state = GameState(position=position, dice=(5, 5), cube=2, cube_owner=BLACK, score=(6, 2), match_length=7)
    text = render(state, plain=True)
    assert "Black (O) to play 5-5." in text
    assert "Black (O): 1 checker on the 23-point." in text
    assert "White (X): 1 checker on the 24-point." in text  # white's ace point, seen from black
    assert "Black: 1 on the bar, 13 borne off, pip count 48." in text
    assert "White: 0 on the bar, 14 borne off, pip count 1." in text
    assert "Cube: 2, owned by Black." in text
    assert "Score: White 2, Black 6 in a 7-point match, post-Crawford." in text


@pytest.mark.parametrize("plain", [False, True])
def test_accepts_position_or_state(plain: bool) -> None:
    assert render(Position(), plain=plain) == render(GameState(), plain=plain)
