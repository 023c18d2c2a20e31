"""Hypothesis strategies for the notation tests: random legal positions and game states."""

from __future__ import annotations

import string

from hypothesis import strategies as st

from gammon.notation.fibs import FibsBoard
from gammon.position import Color, Position
from gammon.state import GameState, GameStatus, Resignation

colors = st.sampled_from([Color.WHITE, Color.BLACK])


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any legal placement: up to 15 checkers a side on points or bar, no point shared."""
    white = [0] * 25
    black = [0] * 25
    for slot in draw(st.lists(st.integers(0, 24), max_size=15)):
        white[slot] += 1
    # Black's point i+1 is white's point 24-i; black may use its bar or a point white leaves empty.
    free = [24] + [i for i in range(24) if not white[23 - i]]
    for slot in draw(st.lists(st.sampled_from(free), max_size=15)):
        black[slot] += 1
    return Position.from_checkers(white, black, draw(colors))


@st.composite
def game_states(draw: st.DrawFn, playing: bool = False) -> GameState:
    """A random valid GameState; ``playing`` keeps status PLAYING and no resignation."""
    position = draw(st.one_of(positions(), colors.map(lambda turn: Position(turn=turn))))
    length = draw(st.one_of(st.just(0), st.integers(1, 25)))
    if length:
        score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
        crawford = length >= 2 and length - 1 in score and draw(st.booleans())
        jacoby = beavers = False
    else:
        score = (draw(st.integers(0, 30000)), draw(st.integers(0, 30000)))
        crawford = False
        jacoby, beavers = draw(st.booleans()), draw(st.booleans())
    if crawford:
        log_cube, owner = 0, None
    else:
        log_cube = draw(st.integers(0, 12))
        owner = None if log_cube == 0 else draw(st.sampled_from([None, Color.WHITE, Color.BLACK]))
    dice = draw(st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))))
    double_offered = dice is None and not crawford and owner in (None, position.turn) and draw(st.booleans())
    cube_limit = draw(st.one_of(st.none(), st.integers(log_cube, 15).map(lambda m: 1 << m)))
    if playing:
        status, resignation = GameStatus.PLAYING, None
    else:
        status = draw(st.sampled_from(list(GameStatus)))
        resignation = draw(st.one_of(st.none(), st.sampled_from(list(Resignation))))
    return GameState(
        position=position, dice=dice, cube=1 << log_cube, cube_owner=owner, double_offered=double_offered,
        resignation=resignation, score=score, match_length=length, crawford=crawford, jacoby=jacoby,
        beavers=beavers, cube_limit=cube_limit, status=status,
    )


names = st.text(alphabet=string.ascii_letters + string.digits + "_", min_size=1, max_size=12)


def _fibs_state(state: GameState) -> GameState:
    """The part of a state a FIBS board carries."""
    return state.replace(jacoby=False, beavers=False, resignation=None, cube_limit=None)


@st.composite
def fibs_boards(draw: st.DrawFn) -> FibsBoard:
    """Random FIBS boards, with the FIBS-only fields and the overrides GNU Backgammon needs."""
    state = _fibs_state(draw(game_states(playing=True)))
    if draw(st.integers(0, 9)) == 0:  # a game over: turn 0, FIBS sees it from `you` on roll
        state = state.replace(status=GameStatus.OVER)
    you = state.to_act if state.double_offered else draw(colors)
    if state.status != GameStatus.PLAYING:
        # Turn 0 does not say who was on roll: the doubler if a double is shown, else you.
        turn = you.other if state.double_offered else you
        if state.position.turn != turn:
            state = state.replace(position=state.position.flip())
    idle = draw(st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))))
    may = None
    if draw(st.booleans()):
        if state.cube == 1:
            may = (draw(st.booleans()), draw(st.booleans()))
        else:
            owner = state.cube_owner
            may = (owner in (None, you), owner in (None, you.other))
    on_bar = draw(st.one_of(st.none(), st.tuples(st.integers(0, 15), st.integers(0, 15))))
    return FibsBoard(
        state, draw(names), draw(names), you, draw(st.sampled_from([-1, 1])),
        state.is_money and draw(st.booleans()), idle, may, on_bar,
        draw(st.integers(0, 4)), draw(st.integers(0, 1)), draw(st.integers(0, 3)),
    )
