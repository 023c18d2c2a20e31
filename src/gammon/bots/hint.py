"""Hints: every legal play of a roll ranked, with its equity, probabilities and loss against the best."""

from __future__ import annotations

from ..cube.context import CubeContext
from ..evaluation import CubeDecision, Hint, Probabilities
from ..cube.met import MatchEquityTable
from ..errors import GammonError
from ..play import Play
from ..position import Position
from ..state import GameState, GameStatus
from .players import Player
from .search import Analysis

#: The strongest player: the neural net at 2 ply, GNU Backgammon's usual depth for hints.
DEFAULT_HINT_PLAYER = "nn:2"




def hint(position: Position | GameState, d1: int, d2: int, player: str | Player = DEFAULT_HINT_PLAYER) -> list[Hint]:
    """Every legal play for the side to act, best first (deeper evaluations rank first).

    Given a :class:`GameState`, plays are ranked by cubeful equity with its cube (money) or
    by match winning chance at its score, shown as equity per cube; given a bare
    :class:`Position`, by cubeless equity. An external engine's player (``gnubg:2``) ranks
    them with the engine's own evaluation.

    >>> hints = hint(Position(), 3, 1, "pubeval")
    >>> hints[0].play_text(), hints[0].loss
    ('8/5 6/5', 0.0)
    """
    chooser = Player.from_name(player) if isinstance(player, str) else player
    if not isinstance(chooser, Player):  # an external engine (gnubg:2, ubgi:CMD) ranks the plays itself
        return chooser.hints(position if isinstance(position, GameState) else GameState(position=position), d1, d2)
    context = CubeContext.from_state(position) if isinstance(position, GameState) else None
    if isinstance(position, GameState):
        position = position.position
    analysis = chooser.analyse(position.array(), d1, d2, full=True, context=context)
    return hints_from_analysis(analysis, cubeful=context is not None)


def hints_from_analysis(analysis: Analysis, cubeful: bool) -> list[Hint]:
    """An analysis's plays as ranked hints (``cubeful``: its equities are cubeful, per cube)."""
    equities = analysis.equities()
    order = analysis.ranking()
    best = equities[order[0]]
    hints = []
    for rank, index in enumerate(order, start=1):
        play = Play.from_array(analysis.moves[index], int(analysis.counts[index]))
        hints.append(Hint(rank, play, analysis.probabilities_of(int(index)), int(analysis.plies[index]),
                          float(best - equities[index]), float(equities[index]) if cubeful else None))
    return hints


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
    chooser = Player.from_name(player) if isinstance(player, str) else player
    return chooser.cube_decision(state.position.array(), CubeContext.from_state(state, met))
