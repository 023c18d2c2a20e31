"""The GNU Backgammon vectors (tests/vectors/ids) through every notation, and FORMATS.md's examples."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from gammon.notation import detect
from gammon.position import Color, Position
from gammon.state import FibsBoard, GameState, GameStatus

VECTORS = sorted((Path(__file__).parent / "vectors" / "ids").glob("*.json"))
CASES = [json.loads(path.read_text()) for path in VECTORS]
IDS = [case["name"] for case in CASES]


def roller_view(state: GameState) -> dict[str, object]:
    """What every notation must agree on, seen from the player on roll (colours aside:
    the XGID vectors and FIBS's letters may name the sides the other way round)."""
    roller = state.position.turn
    opponent = roller.other
    return {
        "board": [list(state.position.checkers(roller)), list(state.position.checkers(opponent))],
        "pips": {"roller": state.position.pip_count(roller), "opponent": state.position.pip_count(opponent)},
        "off": {"roller": state.position.borne_off(roller), "opponent": state.position.borne_off(opponent)},
        "dice": state.dice,
        "cube": state.cube,
        "owner": None if state.cube_owner is None else "roller" if state.cube_owner == roller else "opponent",
        "score": (state.score[roller], state.score[opponent]),
        "match_length": state.match_length,
        "crawford": state.crawford,
        "double_offered": state.double_offered,
    }


def as_gnubg_writes(match_id: str) -> str:
    """A vector's Match ID as GNU Backgammon 1.07 writes a match's own: the "no Jacoby" bit (66) set
    in a match, where it means nothing. The vectors hold what gnubg echoed of an ID set into it,
    which keeps the bit as it was sent; both forms read alike."""
    key = int.from_bytes(base64.b64decode(match_id), "little")
    if (key >> 21) & 0x7FFF:  # a match length: a match
        key |= 1 << 66
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def expected_view(case: dict) -> dict[str, object]:
    fields = case["match_id_fields"]
    roller = fields["move"]
    owner = fields["cube_owner"]
    dice = tuple(fields["dice"])
    return {
        "board": [case["board_roller_view"][1], case["board_roller_view"][0]],
        "pips": case["pips"],
        "off": case["off"],
        "dice": None if dice == (0, 0) else dice,
        "cube": fields["cube"],
        "owner": None if owner == -1 else "roller" if owner == roller else "opponent",
        "score": (fields["score"][roller], fields["score"][1 - roller]),
        "match_length": fields["match_to"],
        "crawford": bool(fields["crawford"]),
        "double_offered": bool(fields["doubled"]),
    }


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_position_id(case: dict) -> None:
    position = Position.from_position_id(case["position_id"])
    assert position.position_id() == case["position_id"]
    assert [list(position.checkers(position.turn)), list(position.checkers(position.turn.other))] == [
        case["board_roller_view"][1],
        case["board_roller_view"][0],
    ]
    assert position.flip().position_id() == case["position_id_opponent_on_roll"]
    assert list(position.board) == case["signed26_roller_view"]
    assert detect(case["position_id"]) == "position_id"
    state = GameState.parse(case["position_id"])
    assert state.position == position and state.dice is None and state.match_length == 0


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_match_id_fields(case: dict) -> None:
    state = GameState.from_match_id(case["match_id"], case["position_id"])
    fields = case["match_id_fields"]
    assert state.match_id() == as_gnubg_writes(case["match_id"])
    assert GameState.from_match_id(as_gnubg_writes(case["match_id"]), case["position_id"]) == state
    assert state.cube == fields["cube"]
    assert state.cube_owner == (None if fields["cube_owner"] == -1 else Color(fields["cube_owner"]))
    assert state.position.turn == Color(fields["move"])
    assert state.to_act == Color(fields["turn"])
    assert state.crawford == bool(fields["crawford"])
    assert state.status == GameStatus(fields["gamestate"])
    assert state.double_offered == bool(fields["doubled"])
    assert (state.resignation or 0) == fields["resigned"]
    assert (state.dice or (0, 0)) == tuple(fields["dice"])
    assert state.match_length == fields["match_to"]
    assert list(state.score) == fields["score"]
    if state.is_money:
        assert state.jacoby == bool(fields["jacoby"])
    else:
        assert not state.jacoby  # gammon rule: the Jacoby bit means nothing in a match


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gnubg_id(case: dict) -> None:
    assert detect(case["gnubgid"]) == "gnubgid"
    state = GameState.from_gnubg_id(case["gnubgid"])
    assert state.gnubg_id() == f"{case['position_id']}:{as_gnubg_writes(case['match_id'])}"
    assert roller_view(state) == expected_view(case)
    assert GameState.parse(case["gnubgid"]) == state
    assert state == GameState.from_match_id(case["match_id"], case["position_id"])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_xgid(case: dict) -> None:
    assert detect(case["xgid"]) == "xgid"
    state = GameState.from_xgid(case["xgid"])
    assert state.xgid() == case["xgid"]
    assert roller_view(state) == expected_view(case)
    assert state.cube_limit == 1024  # max cube 10, kept exactly
    assert GameState.parse(case["xgid"]) == state
    gnubg = GameState.from_gnubg_id(case["gnubgid"])
    if state.position.turn == gnubg.position.turn:
        assert state == gnubg.replace(cube_limit=1024)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fibs_board(case: dict) -> None:
    text = case["fibs_board_from_gnubg"]
    assert detect(text) == "fibs"
    board = FibsBoard.parse(text)
    assert board.text() == text
    assert str(board) == text and repr(board) == f"FibsBoard.parse({text!r})"
    assert (board.player, board.opponent) == ("player1", "player0")
    assert roller_view(board.state) == expected_view(case)
    assert GameState.parse(text) == board.state == GameState.from_fibs(text)
    # GNU Backgammon writes its player 1 (X, you) as FIBS colour +1, which FIBS calls O.
    assert board.you == Color.BLACK
    assert FibsBoard.parse(board.state.fibs()).state == board.state


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_bpn_agrees(case: dict) -> None:
    """BPN has no vector: it must carry exactly what the other notations read."""
    for state in (
        GameState.from_gnubg_id(case["gnubgid"]),
        GameState.from_xgid(case["xgid"]).replace(cube_limit=None),
        FibsBoard.parse(case["fibs_board_from_gnubg"]).state.replace(status=GameStatus.PLAYING),
    ):
        text = state.bpn()
        assert detect(text) == "bpn"
        assert GameState.from_bpn(text) == state
        assert GameState.from_bpn(text).bpn() == text
        assert roller_view(GameState.from_bpn(text)) == expected_view(case)


def test_bpn_example_from_formats() -> None:
    text = "b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7"
    state = GameState.from_bpn(text)
    assert state == GameState(position=Position(turn=Color.WHITE), dice=(3, 1), match_length=7)
    assert state.bpn() == text
    assert Position.from_bpn(text) == Position() and Position().bpn() == "b4E1C3eE3c1e4B-w0b0-w00-n10-0:0:0"
    assert state.xgid() == "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10"
    assert state.position.position_id() == "4HPwATDgc/ABMA"
    assert repr(state) == f"GameState.from_bpn({text!r})"
    # The brief's own spelling: the cube with no owner digit.
    assert GameState.from_bpn("b4E1C3eE3c1e4B-w0b0-w31-n1-0:0:7") == state


def test_xgid_example_from_formats() -> None:
    text = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    state = GameState.from_xgid(text)
    assert state.position == Position(turn=Color.WHITE) and state.dice is None and state.is_money
    assert state.xgid() == text
    assert state.bpn() == "b4E1C3eE3c1e4B-w0b0-w00-n10-0:0:0"


@pytest.mark.parametrize(
    ("match_id", "expected"),
    [
        ("cAkAAAAAAAAA", {"cube": 1, "cube_owner": None, "dice": None, "match_length": 0, "score": (0, 0)}),
        ("cIkFAAAAAAAA", {"cube": 1, "cube_owner": None, "dice": (3, 1), "match_length": 0, "score": (0, 0)}),
        ("QYkqASAAIAAA", {"cube": 2, "cube_owner": Color.BLACK, "dice": (5, 2), "match_length": 9, "score": (2, 4)}),
    ],
)
def test_match_id_examples_from_formats(match_id: str, expected: dict) -> None:
    state = GameState.from_match_id(match_id)
    assert state.position.turn == Color.WHITE and state.status == GameStatus.PLAYING
    for name, value in expected.items():
        assert getattr(state, name) == value
    assert state.match_id() == as_gnubg_writes(match_id)


def test_repr_pastes_back() -> None:
    import gammon
    from gammon.state import GameStatus, Resignation

    namespace = {"GameState": GameState, "Position": Position, "Color": Color, "GameStatus": GameStatus,
                 "Resignation": Resignation, "gammon": gammon}
    states = [
        GameState(),
        GameState.from_bpn("b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7").replace(cube_limit=64, resignation=Resignation.GAMMON),
        GameState(match_length=5, score=(5, 2), status=GameStatus.OVER),  # BPN cannot read this score back
    ]
    for state in states:
        assert eval(repr(state), namespace) == state
