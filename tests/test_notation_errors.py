"""Bad input: every parser raises NotationError naming the field, and nothing else (fuzzed)."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gammon.errors import NotationError
from gammon.notation import detect
from gammon.state import FibsBoard, GameState, GameStatus
from gammon.variant import STANDARD
from notation_strategies import fibs_boards, game_states

OPENING_BPN = "b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7"
OPENING_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10"
GNUBG_ID = "4HPwATDgc/ABMA:cIkFAAAAAAAA"
FIBS = ("board:player1:player0:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:3:1:1:1:1:0:"
        "1:-1:0:25:0:0:0:0:0:0:0:1")


def _fibs_with(index: int, value: str) -> str:
    parts = FIBS.split(":")
    parts[index] = value
    return ":".join(parts)


def _raises(parse: Callable[[str], object], text: str, field: str) -> NotationError:
    with pytest.raises(NotationError) as info:
        parse(text)
    assert info.value.field == field, str(info.value)
    assert info.value.expected and field in str(info.value)
    return info.value


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("b4E1C3eE3c1e4B-w0b0-w31-n10", "fields"),
        ("b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7-c-j", "fields"),
        ("b4E1C3eE3c1e3B-w0b0-w31-n10-0:0:7", "placement"),  # 23 points
        ("b4E1C3eE3c1e5B-w0b0-w31-n10-0:0:7", "placement"),  # 25 points
        ("b4E1C3eE3c1e4BA-w0b0-w31-n10-0:0:7", "placement"),  # 25 points, by a letter
        ("b4E1C3eE3c1e4Z-w0b0-w31-n10-0:0:7", "placement"),  # bad letter
        ("b4E1C3eE3c1e04B-w0b0-w31-n10-0:0:7", "placement"),  # a run of 0
        ("o4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7", "placement"),  # 28 white checkers
        ("b4E1C3eE3c1e4B-w1b0-w31-n10-0:0:7", "bar"),  # 16 white checkers with the bar
        ("b4E1C3eE3c1e4B-w0-w31-n10-0:0:7", "bar"),
        ("b4E1C3eE3c1e4B-w0b0-x31-n10-0:0:7", "turn"),
        ("b4E1C3eE3c1e4B-w0b0-w71-n10-0:0:7", "turn"),
        ("b4E1C3eE3c1e4B-w0b0-w3-n10-0:0:7", "turn"),
        ("b4E1C3eE3c1e4B-w0b0-w31-n30-0:0:7", "cube"),  # 3 is no power of two
        ("b4E1C3eE3c1e4B-w0b0-w31-n11-0:0:7", "cube"),  # an owned 1-cube
        ("b4E1C3eE3c1e4B-w0b0-w31-n23-0:0:7", "cube"),  # owner digit 3
        ("b4E1C3eE3c1e4B-w0b0-w31-x10-0:0:7", "cube"),
        ("b4E1C3eE3c1e4B-w0b0-w31-n10-0:7", "match"),
        ("b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:26", "match"),  # longer than 25
        ("b4E1C3eE3c1e4B-w0b0-w31-n10-7:0:7", "match"),  # the match is already won
        ("b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7-x", "flags"),
        ("b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7-cc", "flags"),
        ("b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:0-c", "flags"),  # Crawford in money play
        ("b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7-c", "flags"),  # Crawford with nobody 1-away
        ("b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7-j", "flags"),  # Jacoby in a match
        ("b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:0-", "flags"),
        ("b4E1C3eE3c1e4B-w0b0-wD-n21-0:0:0", "turn"),  # black doubles while white owns the cube
    ],
)
def test_bpn_errors(text: str, field: str) -> None:
    error = _raises(GameState.from_bpn, text, field)
    assert error.notation == "BPN"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7", "fields"),
        ("XGID=-b----E-C---eE---c-e---B-:0:0:1:31:0:0:0:7:10", "position"),  # 25 characters
        ("XGID=-b----E-C---eE---c-e----Bz:0:0:1:31:0:0:0:7:10", "position"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10", "position"),  # X checker on O's bar
        ("XGID=-b----P-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10", "position"),  # 26 X checkers
        ("XGID=-b----E-C---eE---c-e----B-:x:0:1:31:0:0:0:7:10", "cube"),
        ("XGID=-b----E-C---eE---c-e----B-:0:2:1:31:0:0:0:7:10", "cube owner"),
        ("XGID=-b----E-C---eE---c-e----B-:0:1:1:31:0:0:0:7:10", "cube owner"),  # owned 1-cube
        ("XGID=-b----E-C---eE---c-e----B-:0:0:0:31:0:0:0:7:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:37:0:0:0:7:10", "dice"),
        ("XGID=-b----E-C---eE---c-e----B-:1:0:1:B:0:0:0:0:10", "dice"),  # beaver state
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:-1:0:0:7:10", "score X"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:x:0:7:10", "score O"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:7:0:0:7:10", "score"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:2:7:10", "rules"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:1:7:10", "rules"),  # Crawford, nobody 1-away
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:99:10", "match length"),
        ("XGID=-b----E-C---eE---c-e----B-:3:0:1:31:0:0:0:0:2", "max cube"),  # cube above the limit
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:ten", "max cube"),
    ],
)
def test_xgid_errors(text: str, field: str) -> None:
    error = _raises(GameState.from_xgid, text, field)
    assert error.notation == "XGID"


def _match_id(base: str = "cIkFAAAAAAAA", **fields: int) -> str:
    """``base`` with some fields set, by FORMATS.md's bit offsets (written here independently)."""
    where = {"cube": (0, 4), "owner": (4, 2), "move": (6, 1), "crawford": (7, 1), "state": (8, 3), "turn": (11, 1),
             "doubled": (12, 1), "resigned": (13, 2), "die1": (15, 3), "die2": (18, 3), "length": (21, 15),
             "score0": (36, 15), "score1": (51, 15), "no_jacoby": (66, 1), "padding": (67, 5)}
    key = int.from_bytes(base64.b64decode(base), "little")
    for name, value in fields.items():
        offset, width = where[name]
        key = key & ~(((1 << width) - 1) << offset) | value << offset
    return base64.b64encode(key.to_bytes(9, "little")).decode()


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("cIkFAAAAAAA", "characters"),
        ("cIkFAAAAAAA!", "characters"),
        (_match_id(padding=1), "padding"),
        (_match_id(owner=2), "cube owner"),
        (_match_id(cube=0, owner=0), "cube owner"),  # an owned 1-cube
        (_match_id(die1=7), "dice"),
        (_match_id(die2=0), "dice"),
        (_match_id(doubled=1, turn=0), "dice"),  # a double offered after rolling
        (_match_id(turn=0), "turn"),  # player 0 to act though player 1 is on roll and nothing is pending
        (_match_id(state=5), "game state"),
        (_match_id(length=32), "match length"),
        (_match_id(crawford=1), "crawford"),  # Crawford in money play
        (_match_id(length=7, crawford=1), "crawford"),  # nobody 1-away
        (_match_id(length=7, score0=7), "score"),  # the match is already won
        (_match_id(die1=0, die2=0, cube=1, owner=0, doubled=1, turn=0), "double offered"),  # player 0 owns the cube
    ],
)
def test_match_id_errors(text: str, field: str) -> None:
    error = _raises(GameState.from_match_id, text, field)
    assert error.notation == "Match ID"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("4HPwATDgc/ABMA", "fields"),
        ("4HPwATDgc/ABMA:cIkFAAAAAAAA:x", "fields"),
        ("4HPwATDgc/ABM:cIkFAAAAAAAA", "Position ID"),
        ("////////////AA:cIkFAAAAAAAA", "Position ID"),  # too many checkers
        ("4HPwATDgc/ABMA:" + _match_id(padding=1), "Match ID padding"),
    ],
)
def test_gnubg_id_errors(text: str, field: str) -> None:
    error = _raises(GameState.from_gnubg_id, text, field)
    assert error.notation == "GNUbg ID"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (FIBS.rsplit(":", 1)[0], "fields"),
        ("bored" + FIBS[5:], "board"),
        (_fibs_with(1, ""), "player name"),
        (_fibs_with(3, "x"), "match length"),
        (_fibs_with(3, "30"), "match length"),
        (_fibs_with(4, "+1"), "player score"),
        (_fibs_with(7, "-16"), "position 1"),
        (_fibs_with(31, "-1"), "position 25"),  # a checker of the opponent's colour on your bar
        (_fibs_with(12, "9"), "positions"),  # 19 of your checkers
        (_fibs_with(32, "2"), "turn"),
        (_fibs_with(33, "7"), "player die 1"),
        (_fibs_with(34, "0"), "player die 2"),
        (_fibs_with(37, "3"), "cube"),
        (_fibs_with(37, "2")[: -len("1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")] + "0:0:0:1:-1:0:25:0:0:0:0:0:0:0:1",
         "player may double"),  # cube 2, neither may double: whose is it?
        (_fibs_with(38, "2"), "player may double"),
        (_fibs_with(40, "1"), "was doubled"),  # you are on roll; only the opponent's double is shown
        (_fibs_with(41, "0"), "colour"),
        (_fibs_with(42, "2"), "direction"),
        (_fibs_with(43, "25"), "home"),
        (_fibs_with(44, "0"), "bar"),
        (_fibs_with(45, "3"), "player off"),
        (_fibs_with(49, "5"), "can move"),
        (_fibs_with(50, "2"), "forced move"),
        (_fibs_with(51, "1"), "did crawford"),  # money play has no Crawford game
        (_fibs_with(52, "-1"), "redoubles"),
    ],
)
def test_fibs_errors(text: str, field: str) -> None:
    error = _raises(FibsBoard.parse, text, field)
    assert error.notation == "FIBS board"


@pytest.mark.parametrize("text", ["", "hello", "4HPwATDgc/ABM", "board", "XGIDx", "b4-x"])
def test_detect_rejects(text: str) -> None:
    with pytest.raises(NotationError):
        detect(text)
    with pytest.raises(NotationError):
        GameState.parse(text)


# -- fuzzing ---------------------------------------------------------------------------------
PARSERS: list[Callable[[str], object]] = [
    GameState.from_bpn,
    GameState.from_xgid,
    GameState.from_gnubg_id,
    GameState.from_match_id,
    GameState.from_fibs,
    FibsBoard.parse,
    GameState.parse,
    detect,
]
FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _only_notation_errors(text: str) -> None:
    for parse in PARSERS:
        try:
            parse(text)
        except NotationError as error:
            assert error.field and error.expected
        # Anything else propagates and fails the test.


@st.composite
def mutated(draw: st.DrawFn, valid: st.SearchStrategy[str]) -> str:
    """A valid string with a few characters replaced, inserted or deleted, or fields shuffled."""
    text = draw(valid)
    alphabet = st.sampled_from(list("0123456789-:wbnDcjxXGID=abcopABCOP/+ \n") + ["é", "٣", "\x00"])
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "insert", "delete", "swap"]))
        i = draw(st.integers(0, max(len(text) - 1, 0)))
        if kind == "replace" and text:
            text = text[:i] + draw(alphabet) + text[i + 1:]
        elif kind == "insert":
            text = text[:i] + draw(alphabet) + text[i:]
        elif kind == "delete":
            text = text[:i] + text[i + 1:]
        else:
            sep = draw(st.sampled_from([":", "-"]))
            parts = text.split(sep)
            if len(parts) > 1:
                a, b = draw(st.integers(0, len(parts) - 1)), draw(st.integers(0, len(parts) - 1))
                parts[a], parts[b] = parts[b], parts[a]
                text = sep.join(parts)
    return text


valid_texts = st.one_of(
    game_states(playing=True).map(GameState.bpn),
    game_states(playing=True).map(GameState.xgid),
    game_states().map(GameState.gnubg_id),
    game_states().map(GameState.match_id),
    fibs_boards().map(FibsBoard.text),
)


@FUZZ
@given(st.text(max_size=80))
def test_fuzz_random_text(text: str) -> None:
    _only_notation_errors(text)


@FUZZ
@given(mutated(valid_texts))
def test_fuzz_mutated_valid_text(text: str) -> None:
    _only_notation_errors(text)


@FUZZ
@given(mutated(valid_texts))
def test_fuzz_whatever_parses_writes_back(text: str) -> None:
    """A mutated string that still parses gives a state every writer can write and re-read."""
    try:
        state = GameState.parse(text)
    except NotationError:
        return
    kind = detect(text)
    if kind == "fibs":
        assert FibsBoard.parse(text).text() == text.strip()
    if max(state.score) < 1 << 15 and state.cube <= 1 << 15:  # the Match ID's field widths
        unsaid = {"beavers": False, "cube_limit": None, "variant": STANDARD}  # what a GNUbg ID does not carry
        assert GameState.from_gnubg_id(state.gnubg_id()).replace(**unsaid) == state.replace(**unsaid)
    else:
        with pytest.raises(NotationError):
            state.gnubg_id()
    if state.status == GameStatus.PLAYING:  # BPN and XGID describe a game being played
        assert GameState.from_xgid(state.xgid()).position == state.position
        assert GameState.from_bpn(state.bpn()).position == state.position
