"""A player's next action in a game: the one place a bot's turn is decided, for every host.

The terminal game, the game server and its play-by-mail doors all ask :func:`decide`, so a
bot doubles, takes, answers resignations and plays the same way wherever it sits. The
answer is an :class:`Decision` naming one of the match's actions; the host applies it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cube.context import CubeContext
from ..evaluation import Response
from ..match import PlayerAction
from ..play import Play
from ..state import GameState
from .protocol import Player

__all__ = ["Decision", "accepts_resignation", "decide", "takes", "wants_double"]


@dataclass(frozen=True, slots=True)
class Decision:
    """``kind`` is the action (``play`` comes with the play); a bot never resigns of its own accord."""

    kind: PlayerAction
    play: Play | None = None


def wants_double(player: Player, state: GameState) -> bool:
    player.variant = state.variant  # the cube's value depends on how doubles are played
    return player.should_double(state.position.array(), CubeContext.from_state(state))


def takes(player: Player, state: GameState) -> Response:
    """The answer to a double offered to the side not on roll (the state is the doubler's)."""
    player.variant = state.variant
    return player.answer_double(state.position.array(), CubeContext.from_state(state))


def accepts_resignation(player: Player, state: GameState) -> bool:
    assert state.resignation is not None
    player.variant = state.variant
    return player.accept_resignation(state.position.array(), CubeContext.from_state(state), int(state.resignation))


def decide(player: Player, state: GameState, *, may_double: bool, may_beaver: bool = False) -> Decision:
    """What ``player`` does as the side to act in ``state``.

    ``may_double`` and ``may_beaver`` say what the referee allows now (the host knows: the
    Crawford game, cube ownership, the cube limit), so a bot never attempts an illegal action.
    The player plays by the state's rules (its ``variant``), or raises InvalidPlayerError if
    it cannot (an external engine offered two-move doubles).
    """
    player.variant = state.variant
    if state.double_offered:
        answer = takes(player, state)
        if answer is Response.PASS:
            return Decision(PlayerAction.DROP)
        return Decision(PlayerAction.BEAVER if answer is Response.BEAVER and may_beaver else PlayerAction.TAKE)
    if state.resignation is not None:
        return Decision(PlayerAction.ACCEPT if accepts_resignation(player, state) else PlayerAction.REJECT)
    if state.dice is None:
        return Decision(PlayerAction.DOUBLE if may_double and wants_double(player, state) else PlayerAction.ROLL)
    return Decision(PlayerAction.PLAY, player(state, state.legal_plays()))
