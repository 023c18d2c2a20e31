"""Hypothesis strategies for the notation tests: random legal positions and game states."""

from __future__ import annotations

import string

from hypothesis import strategies as st

from gammon.position import Color, Position
from gammon.notation import MAX_CUBE
from gammon.state import MAX_MATCH_LENGTH, MAX_SCORE, FibsBoard, GameState, GameStatus, Resignation

colors = st.sampled_from([Color.WHITE, Color.BLACK])


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any legal placement: up to 15 checkers a side on points or bar, no point shared, and
    at least one checker (a side with none has won; both cannot have)."""
    white = [0] * 25
    black = [0] * 25
    for slot in draw(st.lists(st.integers(0, 24), max_size=15)):
        white[slot] += 1
    # Black's point i+1 is white's point 24-i; black may use its bar or a point white leaves empty.
    free = [24] + [i for i in range(24) if not white[23 - i]]
    for slot in draw(st.lists(st.sampled_from(free), min_size=0 if sum(white) else 1, max_size=15)):
        black[slot] += 1
    return Position.from_checkers(white, black, draw(colors))


@st.composite
def finished_positions(draw: st.DrawFn) -> Position:
    """A won game: one side has borne off all 15, the other has 1 to 15 checkers left."""
    winner = draw(colors)
    loser = [0] * 25
    for slot in draw(st.lists(st.integers(0, 24), min_size=1, max_size=15)):
        loser[slot] += 1
    empty = [0] * 25
    white, black = (empty, loser) if winner == Color.WHITE else (loser, empty)
    return Position.from_checkers(white, black, draw(colors))


@st.composite
def game_states(draw: st.DrawFn, playing: bool = False) -> GameState:
    """A random valid GameState; ``playing`` keeps status PLAYING and no resignation.

    Without ``playing``: every status, pending resignations, games won by bearing off (status
    OVER, nothing pending) and finished match games whose winner is past the match length.
    """
    if not playing and draw(st.integers(0, 7)) == 0:
        position = draw(finished_positions())
    else:
        position = draw(st.one_of(positions(), colors.map(lambda turn: Position(turn=turn))))
        if playing:
            position = position if position.winner() is None else Position(turn=position.turn)
    finished = position.winner() is not None
    if playing:
        status, resignation = GameStatus.PLAYING, None
    elif finished:
        status, resignation = GameStatus.OVER, None
    else:
        status = draw(st.sampled_from(list(GameStatus)))
        resignation = draw(st.one_of(st.none(), st.sampled_from(list(Resignation))))
    length = draw(st.one_of(st.just(0), st.integers(1, MAX_MATCH_LENGTH)))
    ended = status in (GameStatus.OVER, GameStatus.RESIGNED, GameStatus.DROPPED)
    if length:
        score = [draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1))]
        crawford = length >= 2 and length - 1 in score and draw(st.booleans())
        jacoby = beavers = False
    else:
        score = [draw(st.integers(0, MAX_SCORE)), draw(st.integers(0, MAX_SCORE))]
        crawford = False
        jacoby, beavers = draw(st.booleans()), draw(st.booleans())
    if crawford:
        log_cube, owner = 0, None
    else:
        log_cube = draw(st.integers(0, MAX_CUBE.bit_length() - 1))
        owner = None if log_cube == 0 else draw(st.sampled_from([None, Color.WHITE, Color.BLACK]))
    if length and ended and not crawford and draw(st.booleans()):
        # The game that ended won the match: its points (at most 3 cubes) are in the score.
        won = draw(colors)
        score[won] = draw(st.integers(length, min(length - 1 + 3 * (1 << log_cube), MAX_SCORE)))
    dice = None if finished else draw(st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))))
    top = MAX_CUBE.bit_length() - 1
    double_offered = (not finished and dice is None and not crawford and owner in (None, position.turn)
                      and log_cube < top and draw(st.booleans()))
    lowest = log_cube + int(double_offered)
    cube_limit = draw(st.one_of(st.none(), st.integers(lowest, top).map(lambda m: 1 << m)))
    return GameState(
        position=position, dice=dice, cube=1 << log_cube, cube_owner=owner, double_offered=double_offered,
        resignation=resignation, score=(score[0], score[1]), match_length=length, crawford=crawford, jacoby=jacoby,
        beavers=beavers, cube_limit=cube_limit, status=status,
    )


names = st.text(alphabet=string.ascii_letters + string.digits + "_", min_size=1, max_size=12)


def fibs_state(state: GameState) -> GameState:
    """The part of a state a FIBS board carries: a game being played or over (turn 0), no
    resignation, cube limit, Jacoby rule or beavers."""
    status = GameStatus.PLAYING if state.status == GameStatus.PLAYING else GameStatus.OVER
    return state.replace(jacoby=False, beavers=False, resignation=None, cube_limit=None, status=status)


@st.composite
def fibs_boards(draw: st.DrawFn) -> FibsBoard:
    """Random FIBS boards, with the FIBS-only fields and the overrides GNU Backgammon needs."""
    state = fibs_state(draw(game_states()))
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
