"""Random valid game states through every notation: state -> text -> state, text -> state -> text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.errors import NotationError
from gammon.notation import detect
from gammon.notation.fibs import FibsBoard
from gammon.position import Color, Position
from gammon.state import GameState, GameStatus
from notation_strategies import fibs_boards, game_states, positions

EXAMPLES = settings(max_examples=300, deadline=None)


def _playing(state: GameState) -> GameState:
    """What BPN and XGID carry: a game being played, nothing resigned."""
    return state.replace(status=GameStatus.PLAYING, resignation=None)


@EXAMPLES
@given(game_states(playing=True))
def test_bpn_round_trip(state: GameState) -> None:
    text = state.bpn()
    assert detect(text) == "bpn"
    back = GameState.from_bpn(text)
    assert back == state.replace(cube_limit=None)
    assert back.bpn() == text
    assert GameState.parse(text) == back


@EXAMPLES
@given(game_states())
def test_gnubg_id_round_trip(state: GameState) -> None:
    text = state.gnubg_id()
    assert detect(text) == "gnubgid"
    back = GameState.from_gnubg_id(text)
    assert back == state.replace(beavers=False, cube_limit=None)
    assert back.gnubg_id() == text
    assert GameState.from_match_id(state.match_id(), state.position) == back
    assert GameState.from_match_id(state.match_id(), state.position.flip()) == back


@EXAMPLES
@given(game_states(playing=True))
def test_xgid_round_trip(state: GameState) -> None:
    text = state.xgid()
    assert detect(text) == "xgid"
    back = GameState.from_xgid(text)
    # gammon rule: max cube m is the limit 2**m; no limit is written as XG's default 10.
    assert back == state.replace(cube_limit=state.cube_limit or max(1 << 10, state.cube))
    assert back.xgid() == text
    assert GameState.from_xgid(text.removeprefix("XGID=")) == back


@EXAMPLES
@given(fibs_boards())
def test_fibs_round_trip(board: FibsBoard) -> None:
    text = board.text()
    assert detect(text) == "fibs"
    assert len(text.split(":")) == 53
    back = FibsBoard.parse(text)
    assert back.text() == text
    assert back.state == board.state
    # Overrides equal to what the game implies read back as None.
    assert back == board.replace(
        may_double=None if back.may_double is None else board.may_double,
        on_bar=None if back.on_bar is None else board.on_bar,
    )


@EXAMPLES
@given(game_states(playing=True), st.sampled_from([None, Color.WHITE, Color.BLACK]))
def test_fibs_from_state(state: GameState, you: Color | None) -> None:
    state = state.replace(jacoby=False, beavers=False, cube_limit=None)
    if state.double_offered:
        you = None  # FIBS shows a pending double to the doubled side only
    text = state.fibs("alice", "bob", you)
    assert GameState.from_fibs(text) == state
    board = FibsBoard.parse(text)
    assert (board.player, board.opponent) == ("alice", "bob")
    assert board.you == (state.to_act if you is None else you)


@EXAMPLES
@given(positions())
def test_position_notations(position: Position) -> None:
    assert Position.from_bpn(position.bpn()) == position
    pid = position.position_id()
    assert detect(pid) == "position_id"
    assert GameState.parse(pid).position == Position.from_position_id(pid)


@EXAMPLES
@given(game_states())
def test_repr_pastes_back(state: GameState) -> None:
    from gammon.state import Resignation

    namespace = {"GameState": GameState, "Position": Position, "Color": Color, "GameStatus": GameStatus,
                 "Resignation": Resignation}
    assert eval(repr(state), namespace) == state


@EXAMPLES
@given(game_states(playing=True))
def test_notations_agree(state: GameState) -> None:
    """Every notation read back gives the same game, up to what each carries."""
    common = _playing(state).replace(jacoby=False, beavers=False, cube_limit=None)
    assert GameState.from_bpn(state.bpn()).replace(jacoby=False, beavers=False) == common
    assert GameState.from_gnubg_id(state.gnubg_id()).replace(jacoby=False) == common
    assert GameState.from_xgid(state.xgid()).replace(jacoby=False, beavers=False, cube_limit=None) == common
    if not state.double_offered:
        if state.jacoby or state.beavers:
            with pytest.raises(NotationError, match="Jacoby rule or beavers"):
                state.fibs()  # FIBS has no field for them: refused, not dropped
        else:
            assert GameState.from_fibs(state.fibs()) == common
