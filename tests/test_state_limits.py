"""Limits checked where a state is set, with one clear error naming the field (issue 13).

A state accepted by any reader or constructor is one every later use can take: a cube of at
most 2**15, scores below the match length while a game is played, 15 checkers a side, and a
game not already won. A position where a side has borne off all 15 is a finished game (status
OVER, nothing left to do); a position with no checkers at all is no game.
"""

from __future__ import annotations

import base64
import io
import json
import sys

import pytest

from gammon.cli import main
from gammon.errors import InvalidPositionError, NotationError
from gammon.notation import MAX_CUBE, detect
from gammon.notation import match_id as match_id_module
from gammon.position import Color, Position
from gammon.state import MAX_SCORE, FibsBoard, GameState, GameStatus, Resignation

OPENING_BPN = "b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7"
OPENING_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10"
OPENING_GNUBG_ID = "4HPwATDgc/ABMA:cIkFAAAAAAAA"
OPENING_FIBS = (
    "board:player1:player0:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:3:1:1:1:1:0:"
    "1:-1:0:25:0:0:0:0:0:0:0:1"
)
NO_CHECKERS = "AAAAAAAAAAAAAA"
#: Black has borne off all 15; white, on roll, has three checkers on its 6-point.
BLACK_WON = Position("AAAAwAEAAAAAAA")
#: What GNU Backgammon 1.07 wrote after its player 1 (white) bore off the last checker in a
#: 5-point match: the loser on roll, game over, no dice, the point in the score.
GNUBG_GAME_OVER = "AAAAwAEAAAAAAA:MAKgAAAACAAE"


def _refused(read, text: str, field: str) -> NotationError:
    with pytest.raises(NotationError) as info:
        read(text)
    assert info.value.field == field, str(info.value)
    return info.value


def _invalid(field: str, **values: object) -> InvalidPositionError:
    with pytest.raises(InvalidPositionError) as info:
        GameState(**values)  # type: ignore[arg-type]
    assert getattr(info.value, "field", None) == field, str(info.value)
    return info.value


def _match_id(**fields: int) -> str:
    """A Match ID with the given raw fields (GNU Backgammon's names), the rest of the opening's."""
    values = {"cube": 0, "owner": 3, "move": 1, "crawford": 0, "state": 1, "turn": 1, "doubled": 0,
              "resigned": 0, "die1": 0, "die2": 0, "length": 0, "score0": 0, "score1": 0, "no_jacoby": 1}
    values.update(fields)
    m = match_id_module
    where = {"cube": m._CUBE, "owner": m._OWNER, "move": m._MOVE, "crawford": m._CRAWFORD, "state": m._STATE,
             "turn": m._TURN, "doubled": m._DOUBLED, "resigned": m._RESIGNED, "die1": m._DIE1, "die2": m._DIE2,
             "length": m._LENGTH, "score0": m._SCORE0, "score1": m._SCORE1, "no_jacoby": m._NO_JACOBY}
    key = 0
    for name, value in values.items():
        key |= m._put(where[name], value)
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def _fibs_with(**changes: str) -> str:
    from gammon.notation.fibs import FIELD_NAMES

    parts = OPENING_FIBS.split(":")
    for name, value in changes.items():
        parts[FIELD_NAMES.index(name.replace("_", " "))] = value
    return ":".join(parts)


def _run(args: list[str], capsys: pytest.CaptureFixture[str], stdin: str = "") -> tuple[int, str, str]:
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        status = main(args)
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return status, out, err


# -- the cube: at most 2**15, wherever a notation can carry it -------------------------------------
def test_a_bpn_cube_above_the_limit_is_refused_where_it_is_read() -> None:
    # Accepted before issue 13, then every `go` of the engine failed.
    error = _refused(GameState.from_bpn, "b4E1C3eE3c1e4B-w0b0-w31-n65536-0:0:7", "cube")
    assert "32768" in str(error)
    _refused(GameState.from_bpn, "b4E1C3eE3c1e4B-w0b0-w31-n655361-0:0:0", "cube")  # owned by white
    assert GameState.from_bpn("b4E1C3eE3c1e4B-w0b0-w31-n327681-0:0:0").cube == MAX_CUBE


def test_the_state_refuses_a_cube_above_the_limit() -> None:
    assert MAX_CUBE == 1 << 15
    _invalid("cube", cube=MAX_CUBE * 2)
    _invalid("cube", cube=3)
    _invalid("cube", cube=2.0)
    _invalid("cube_limit", cube_limit=MAX_CUBE * 2)
    _invalid("cube_limit", cube_limit=100)  # a limit is a cube value: a power of two
    assert GameState(cube=MAX_CUBE, cube_owner=Color.WHITE).cube == MAX_CUBE


def test_no_double_past_the_top_of_the_cube() -> None:
    _invalid("double_offered", cube=MAX_CUBE, double_offered=True)
    _invalid("double_offered", cube=64, cube_limit=64, double_offered=True)
    assert GameState(cube=32, cube_limit=64, double_offered=True).double_offered


def test_other_notations_refuse_a_cube_above_the_limit() -> None:
    _refused(GameState.from_xgid, "XGID=-b----E-C---eE---c-e----B-:16:0:1:31:0:0:0:0:16", "cube")
    _refused(GameState.from_xgid, "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:16", "max cube")
    _refused(FibsBoard.parse, _fibs_with(cube="65536"), "cube")
    # The Match ID keeps log2(cube) in 4 bits: 2**15 is its largest, and reads.
    assert GameState.from_match_id(_match_id(cube=15, owner=1)).cube == MAX_CUBE


def test_the_xgid_writer_writes_only_what_its_reader_reads() -> None:
    # Before issue 13 the writer gave a cube "31" (2**31) and a score "3075:1" the reader refused:
    # such states cannot be made now.
    _invalid("cube", cube=1 << 31)
    _invalid("score", score=(1, 3075), match_length=5, status=GameStatus.OVER)
    # A match won by resignation has no XGID (nor BPN): neither carries a game status.
    resigned = GameState(score=(1, 7), match_length=5, cube=2, cube_owner=Color.BLACK,
                         resignation=Resignation.GAMMON, status=GameStatus.RESIGNED)
    assert _refused(lambda state: state.xgid(), resigned, "score").text == "7:1"
    assert _refused(lambda state: state.bpn(), resigned, "score").text == "7:1:5"
    assert GameState.from_gnubg_id(resigned.gnubg_id()) == resigned
    # A double of a 1024-cube with no limit writes max cube 11, which reads back.
    doubled = GameState(cube=1024, double_offered=True)
    assert doubled.xgid().endswith(":11")
    assert GameState.from_xgid(doubled.xgid()) == doubled.replace(cube_limit=2048)


# -- scores: below the match length while a game is played ----------------------------------------
def test_a_match_id_whose_score_has_won_the_match_is_refused() -> None:
    error = _refused(GameState.from_match_id, _match_id(length=5, score0=5), "score")
    assert "5-point match" in str(error)
    _refused(GameState.from_match_id, _match_id(length=5, score0=30000, score1=30000, state=2), "score")
    _refused(GameState.from_match_id, _match_id(length=5, score1=100, state=2), "score")  # more than one game
    _refused(GameState.from_match_id, _match_id(length=3, score0=3, state=0), "score")  # no game to start


def test_a_finished_match_keeps_its_final_score() -> None:
    # A 7-point match won from 6-5 with a gammon on a 2-cube ends 10-5.
    state = GameState(score=(5, 10), match_length=7, cube=2, cube_owner=Color.BLACK, status=GameStatus.OVER)
    assert GameState.from_gnubg_id(state.gnubg_id()) == state
    _invalid("score", score=(5, 13), match_length=7, cube=2, cube_owner=Color.BLACK, status=GameStatus.OVER)
    _invalid("score", score=(7, 7), match_length=7, status=GameStatus.OVER)
    _invalid("score", score=(-1, 0))
    # A money session's score has no top; the Match ID, which keeps it in 15 bits, refuses it.
    session = GameState(score=(MAX_SCORE + 1, 0))
    with pytest.raises(NotationError, match="score"):
        session.gnubg_id()
    assert GameState.from_bpn(session.bpn()) == session


def test_what_gnu_backgammon_writes_at_a_game_over_reads() -> None:
    state = GameState.from_gnubg_id(GNUBG_GAME_OVER)
    assert state.status == GameStatus.OVER and state.position.winner() == Color.WHITE
    assert state.position.turn == Color.BLACK and state.dice is None
    assert state.score[Color.WHITE] == 1 and state.score[Color.BLACK] == 0 and state.match_length == 5
    assert GameState.from_gnubg_id(state.gnubg_id()) == state  # (the Jacoby bit aside, the same ID)
    assert state.gnubg_id()[:-1] == GNUBG_GAME_OVER[:-1]


# -- 15 checkers a side ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("read", "text", "field"),
    [
        (GameState.from_bpn, "p4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7", "placement"),
        (GameState.from_bpn, "b4E1C3eE3c1e4B-w1b0-w31-n10-0:0:7", "bar"),
        (GameState.from_xgid, "XGID=-b----E-C---eE---c-e----C-:0:0:1:31:0:0:0:7:10", "position"),
        (GameState.from_xgid, "XGID=-b----E-C---eE---c-e----BP:0:0:1:31:0:0:0:7:10", "position"),
        (GameState.from_gnubg_id, "////////////AA:cIkFAAAAAAAA", "Position ID"),
        (FibsBoard.parse, _fibs_with(position_1="-3"), "positions"),
        (FibsBoard.parse, _fibs_with(position_1="-16"), "position 1"),
    ],
)
def test_more_than_15_checkers_are_refused(read, text: str, field: str) -> None:
    _refused(read, text, field)


# -- a game not already won -----------------------------------------------------------------------
def test_a_position_with_no_checkers_is_no_game() -> None:
    _refused(GameState.parse, NO_CHECKERS, "key")
    error = _refused(GameState.parse, f"{NO_CHECKERS}:cAkAAAAAAAAA", "Position ID")
    assert "both sides cannot have borne off all 15" in str(error)
    _refused(GameState.from_bpn, "24-w0b0-w00-n10-0:0:0", "placement")
    _refused(GameState.from_xgid, "XGID=--------------------------:0:0:1:00:0:0:0:0:10", "position")
    _refused(lambda text: GameState.from_match_id(text, NO_CHECKERS), "cAkAAAAAAAAA", "position")
    _invalid("position", position=Position([0] * 26))
    _invalid("position", position=Position([0] * 26), status=GameStatus.OVER)


def test_a_won_position_is_a_finished_game() -> None:
    assert BLACK_WON.winner() == Color.BLACK  # a legitimate Position value
    state = GameState(position=BLACK_WON)
    assert state.status == GameStatus.OVER  # the default status follows the position
    assert GameState(position=BLACK_WON, score=(0, 7), match_length=5).score == (0, 7)
    _invalid("status", position=BLACK_WON, status=GameStatus.PLAYING)
    _invalid("status", position=BLACK_WON, status=GameStatus.RESIGNED)
    _invalid("dice", position=BLACK_WON, dice=(3, 1))
    _invalid("double_offered", position=BLACK_WON, double_offered=True)
    _invalid("resignation", position=BLACK_WON, resignation=Resignation.SINGLE)
    # Nor can a game in play be moved into it: the status stays what it was.
    with pytest.raises(InvalidPositionError):
        GameState().replace(position=BLACK_WON)


def test_a_won_game_said_to_be_playing_is_refused_by_every_reader() -> None:
    # GNU Backgammon writes status OVER (GNUBG_GAME_OVER); the same board "playing" is refused.
    error = _refused(GameState.from_gnubg_id, "AAAAwAEAAAAAAA:cAkAAAAAAAAA", "Match ID game state")
    assert "black has borne off all 15 checkers" in str(error)
    # BPN and XGID have no status: a won placement reads as a finished game, with nothing pending.
    won = GameState.from_bpn("5C18-w0b0-b00-n10-1:0:5")
    assert won.status == GameStatus.OVER and won.position.winner() == Color.WHITE
    assert GameState.from_xgid(won.xgid()) == won.replace(cube_limit=1024)
    _refused(GameState.from_bpn, "5C18-w0b0-b31-n10-1:0:5", "turn")
    _refused(GameState.from_bpn, "5C18-w0b0-wD-n10-0:0:0", "turn")
    _refused(GameState.from_xgid, won.xgid().replace(":00:", ":31:"), "dice")
    # FIBS: turn 0 is a game over; a turn with a side on roll is a game being played.
    text = won.fibs()
    assert GameState.from_fibs(text).status == GameStatus.OVER
    parts = text.split(":")
    parts[32] = "1"
    _refused(FibsBoard.parse, ":".join(parts), "turn")


def test_cube_on_a_position_with_no_checkers_is_an_error_not_advice(capsys: pytest.CaptureFixture[str]) -> None:
    # Before issue 13: "No double, take".
    status, out, err = _run(["cube", "--player", "pubeval", f"{NO_CHECKERS}:cAkAAAAAAAAA"], capsys)
    assert status != 0 and "double" not in out.lower()
    assert "both sides cannot have borne off all 15" in err


@pytest.mark.parametrize("position", ["AAAAwAEAAAAAAA:cAkAAAAAAAAA", GNUBG_GAME_OVER, "5C18-w0b0-b00-n10-1:0:5"])
def test_cube_on_a_finished_game_is_an_error_not_advice(position: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(["cube", "--player", "pubeval", position], capsys)
    assert status != 0 and out == ""
    assert "over" in err


def test_cube_batch_answers_a_finished_game_with_an_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    lines = f"{NO_CHECKERS}:cAkAAAAAAAAA\n{GNUBG_GAME_OVER}\n4HPwATDgc/ABMA:cAkAAAAAAAAA\n"
    _, out, _ = _run(["cube", "--batch", "--player", "pubeval"], capsys, lines)
    answers = [json.loads(line) for line in out.splitlines()]
    assert ["error" in a for a in answers] == [True, True, False]


# -- only ASCII digits are numbers ----------------------------------------------------------------
UNICODE_DIGITS = ["²", "①", "٣", "５", "𝟕", "߃"]
SAMPLES = {
    "bpn": (GameState.from_bpn, OPENING_BPN),
    "xgid": (GameState.from_xgid, OPENING_XGID),
    "gnubgid": (GameState.from_gnubg_id, OPENING_GNUBG_ID),
    "fibs": (FibsBoard.parse, OPENING_FIBS),
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
@pytest.mark.parametrize("digit", UNICODE_DIGITS)
def test_only_ascii_digits_are_numbers(kind: str, digit: str) -> None:
    read, sample = SAMPLES[kind]
    # FIBS player names are free text: only its numbers count.
    start = len(":".join(sample.split(":")[:3])) if kind == "fibs" else 0
    places = [i for i, char in enumerate(sample) if char.isdigit() and i >= start]
    assert places
    for i in places:
        text = sample[:i] + digit + sample[i + 1:]
        with pytest.raises(NotationError):
            read(text)
        with pytest.raises(NotationError):
            GameState.parse(text)
        try:
            detect(text)
        except NotationError:
            pass


@pytest.mark.parametrize("text", ["4HPwATDgc/ABM²", "4HPwATDgc/ABM٣", "cIkFAAAAAAA²"])
def test_ids_with_unicode_digits_are_refused(text: str) -> None:
    with pytest.raises(NotationError):
        GameState.parse(text)
    with pytest.raises(NotationError):
        Position.from_position_id(text) if len(text) == 14 else GameState.from_match_id(text)


# -- the bear-off evaluator ------------------------------------------------------------------------
def test_the_bearoff_evaluator_refuses_a_board_with_no_checkers() -> None:
    import numpy as np

    from gammon.bearoff import BearoffEvaluator
    from gammon.errors import BearoffCoverageError

    # Before issue 13 the tables answered p_win 1.0. The check comes before any table is loaded.
    with pytest.raises(BearoffCoverageError, match="no checkers on either side"):
        BearoffEvaluator().on_roll(np.zeros(26, np.int8))
    boards = np.zeros((3, 26), np.int8)
    boards[0, 1], boards[0, 24], boards[2, 1] = 1, -1, 1
    with pytest.raises(BearoffCoverageError, match="board 1 has no checkers"):
        BearoffEvaluator().on_roll_batch(boards)


def test_every_field_is_checked_where_it_is_set() -> None:
    # Each would otherwise fail later, in a writer (the Match ID packs each field in a few bits).
    _invalid("resignation", resignation=5)
    _invalid("status", status=9)
    _invalid("dice", dice=(3.5, 1))
    _invalid("dice", dice=(True, 1))
    _invalid("score", score=(0, 0, 0))
    _invalid("match_length", match_length=26)
    _invalid("position", position="4HPwATDgc/ABMA")
    assert GameState(resignation=2, status=1, dice=[3, 1]) == GameState(
        resignation=Resignation.GAMMON, status=GameStatus.PLAYING, dice=(3, 1))
