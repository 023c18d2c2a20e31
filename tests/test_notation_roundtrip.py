"""Random valid game states through every notation pair: each writer's text is read back by its
reader as the same state in every field the notation carries, or the writer refuses with a
NotationError naming the field its notation cannot carry. Then text -> state -> text."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.errors import InvalidPositionError, NotationError
from gammon.notation import detect
from gammon.position import Color, Position
from gammon.state import FibsBoard, GameState, GameStatus, Resignation
from notation_strategies import fibs_boards, fibs_state, game_states, positions

EXAMPLES = settings(max_examples=300, deadline=None)


def _carried(state: GameState, **changes: object) -> GameState | None:
    """``state`` with what a notation does not carry changed; None when the result is no game
    (a match already won, once the status that said so is dropped)."""
    try:
        return state.replace(**changes)
    except InvalidPositionError:
        return None


def _round_trip(
    state: GameState, kind: str, write: Callable[[GameState], str], read: Callable[[str], GameState],
    expected: GameState | None, refused: str,
) -> GameState | None:
    """Write, read back, compare with ``expected``; with ``expected`` None the writer must refuse,
    naming ``refused``."""
    if expected is None:
        with pytest.raises(NotationError) as info:
            write(state)
        assert info.value.field == refused, str(info.value)
        return None
    text = write(state)
    assert detect(text) == kind
    back = read(text)
    assert back == expected
    assert write(back) == text
    assert GameState.parse(text) == back
    return back


def _bpn_state(state: GameState) -> GameState | None:
    # No status (a won placement reads as OVER, anything else as PLAYING), resignation or limit.
    return _carried(state, status=None, resignation=None, cube_limit=None)


def _xgid_state(state: GameState) -> GameState | None:
    # gammon rule: max cube m is the limit 2**m; no limit is written as XG's default 10, or
    # as the largest cube the state holds (twice the cube while a double is offered).
    largest = state.cube * (2 if state.double_offered else 1)
    limit = state.cube_limit or max(1 << 10, largest)
    return _carried(state, status=None, resignation=None, cube_limit=limit)


@EXAMPLES
@given(game_states())
def test_bpn_round_trip(state: GameState) -> None:
    _round_trip(state, "bpn", GameState.bpn, GameState.from_bpn, _bpn_state(state), "score")


@EXAMPLES
@given(game_states())
def test_xgid_round_trip(state: GameState) -> None:
    back = _round_trip(state, "xgid", GameState.xgid, GameState.from_xgid, _xgid_state(state), "score")
    if back is not None:
        assert GameState.from_xgid(state.xgid().removeprefix("XGID=")) == back


@EXAMPLES
@given(game_states())
def test_gnubg_id_round_trip(state: GameState) -> None:
    expected = state.replace(beavers=False, cube_limit=None)
    back = _round_trip(state, "gnubgid", GameState.gnubg_id, GameState.from_gnubg_id, expected, "")
    assert GameState.from_match_id(state.match_id(), state.position) == back
    assert GameState.from_match_id(state.match_id(), state.position.flip()) == back


def _fibs_expected(state: GameState, you: Color | None) -> GameState:
    """What a FIBS board of ``state`` seen by ``you`` reads back as."""
    expected = fibs_state(state)
    if expected.status == GameStatus.OVER:
        # Turn 0 does not say who was on roll: FIBS reads you (the doubler if a double is shown),
        # and the dice shown for the other side as the idle dice.
        seen = state.to_act if you is None else you
        on_roll = seen.other if expected.double_offered else seen
        if expected.position.turn != on_roll:
            expected = expected.replace(position=expected.position.flip(), dice=None)
    return expected


@EXAMPLES
@given(game_states(), st.sampled_from([None, Color.WHITE, Color.BLACK]))
def test_fibs_from_state(state: GameState, you: Color | None) -> None:
    if state.double_offered:
        you = None  # FIBS shows a pending double to the doubled side only
    if state.jacoby or state.beavers:
        with pytest.raises(NotationError) as info:
            state.fibs("alice", "bob", you)
        assert info.value.field == "rules"  # FIBS has no field for them: refused, not dropped
        return
    text = state.fibs("alice", "bob", you)
    assert detect(text) == "fibs"
    back = GameState.from_fibs(text)
    assert back == _fibs_expected(state, you)
    board = FibsBoard.parse(text)
    assert (board.player, board.opponent) == ("alice", "bob")
    assert board.you == (state.to_act if you is None else you)
    assert board.text() == text


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
@given(positions())
def test_position_notations(position: Position) -> None:
    assert Position.from_bpn(position.bpn()) == position
    pid = position.position_id()
    assert detect(pid) == "position_id"
    assert Position.from_position_id(pid, position.turn) == position
    assert GameState.parse(pid).position == Position.from_position_id(pid)


@EXAMPLES
@given(game_states())
def test_repr_pastes_back(state: GameState) -> None:
    namespace = {"GameState": GameState, "Position": Position, "Color": Color, "GameStatus": GameStatus,
                 "Resignation": Resignation}
    assert eval(repr(state), namespace) == state


@EXAMPLES
@given(game_states(playing=True))
def test_notations_agree(state: GameState) -> None:
    """Every notation read back gives the same game, up to what each carries."""
    common = state.replace(jacoby=False, beavers=False, cube_limit=None, resignation=None)
    assert GameState.from_bpn(state.bpn()).replace(jacoby=False, beavers=False) == common
    assert GameState.from_gnubg_id(state.gnubg_id()).replace(jacoby=False, resignation=None) == common
    assert GameState.from_xgid(state.xgid()).replace(jacoby=False, beavers=False, cube_limit=None) == common
    if not (state.double_offered or state.jacoby or state.beavers):
        assert GameState.from_fibs(state.fibs()) == common
