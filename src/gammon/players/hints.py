"""Hints: every legal play of a roll ranked, and the cube decision, by any player."""

from __future__ import annotations

from ..cube.context import CubeContext
from ..cube.met import MatchEquityTable
from ..errors import GammonError
from ..evaluation import CubeDecision, Hint
from ..position import Position
from ..state import GameState, GameStatus
from ..variant import STANDARD
from .names import load_player
from .protocol import Player

#: The strongest player: the neural net at 2 ply, GNU Backgammon's usual depth for hints.
DEFAULT_HINT_PLAYER = "nn:2"


def hint(position: Position | GameState, d1: int, d2: int, player: str | Player = DEFAULT_HINT_PLAYER) -> list[Hint]:
    """Every legal play for the side to act, best first (deeper evaluations rank first).

    Given a :class:`GameState`, plays are ranked by cubeful equity with its cube (money) or
    by match winning chance at its score, shown as equity per cube, and are those of its rules
    (its ``variant``: a player that cannot play them raises InvalidPlayerError); given a bare
    :class:`Position`, by cubeless equity, under the player's own rules. An external engine's
    player (``gnubg:2``) ranks them with the engine's own evaluation.

    >>> hints = hint(Position(), 3, 1, "pubeval")
    >>> hints[0].play_text(), hints[0].loss
    ('8/5 6/5', 0.0)
    """
    over = position.status != GameStatus.PLAYING if isinstance(position, GameState) else \
        position.winner() is not None
    if over:
        raise HintError("the game is over: there are no plays to rank (a side has borne off all 15 checkers)")
    if not isinstance(player, str):
        return player.hints(position, d1, d2)
    named = load_player(player, variant=position.variant if isinstance(position, GameState) else STANDARD)
    try:
        return named.hints(position, d1, d2)
    finally:
        named.close()


class HintError(GammonError, ValueError):
    """A position with no plays to rank: its game is over."""


class CubeHintError(GammonError, ValueError):
    """A state with no cube decision to make (the game is over, a resignation is pending)."""


def cube_hint(state: GameState, player: str | Player = DEFAULT_HINT_PLAYER,
              met: MatchEquityTable | None = None) -> CubeDecision:
    """The cube decision of the side on roll of ``state`` (with a double pending: the doubler's,
    whose ``take`` is the answer), at the player's depth, with ``met`` (default Kazaross-XG2).

    >>> state = GameState.from_gnubg_id("4HPwATDgc/ABMA:cAkAAAAAAAAA")  # the opening, money
    >>> cube_hint(state, "pubeval").action
    'No double, take'
    """
    if state.status != GameStatus.PLAYING:
        raise CubeHintError(f"the game is over ({state.status.name.lower()}): there is no cube decision")
    if state.resignation is not None:
        raise CubeHintError("a resignation is pending: answer it before any cube decision")
    context = CubeContext.from_state(state, met)
    if not isinstance(player, str):
        player.variant = state.variant
        return player.cube_decision(state.position.array(), context)
    named = load_player(player, variant=state.variant)
    try:
        return named.cube_decision(state.position.array(), context)
    finally:
        named.close()
