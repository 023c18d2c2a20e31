"""What a game asks a player: the one interface of gammon's bots and external engines alike."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..cube.context import CubeContext
from ..evaluation import CubeDecision, Hint, Response
from ..play import Play
from ..position import LegalPlays, Position
from ..state import GameState
from ..variant import Variant


@runtime_checkable
class Player(Protocol):
    """A player: :class:`gammon.bots.Bot` (an evaluator and a search) or
    :class:`~gammon.players.EnginePlayer` (an external engine process).

    Boards are kernel boards seen from the side on roll; a ``context`` is that side's cube
    context (None: a cubeless game). Duels, hints, the terminal game and ``gammon engine``
    use nothing but these methods, so any player plays anywhere. A host that knows the rules
    (a :class:`GameState`'s ``variant``) sets :attr:`variant` before it asks.
    """

    name: str
    #: The rules it plays by: its plays, replies and cube decisions follow them. Setting rules it
    #: cannot play (two-move doubles to an external engine) raises InvalidPlayerError.
    variant: Variant

    def reseed(self, seed: int | np.random.SeedSequence) -> None:
        """Restart the player's own randomness (noise, a random evaluator): same seed, same choices."""

    def choose_board(self, board: np.ndarray, d1: int, d2: int, context: CubeContext | None = None) -> np.ndarray:
        """The board after the chosen play of ``d1``-``d2`` (the mover's view)."""

    def choose_play(self, position: Position, d1: int, d2: int) -> Play:
        """The play chosen in ``position`` (cubeless)."""

    def __call__(self, state: object, legal_plays: LegalPlays) -> Play:
        """The terminal game's question: one of ``legal_plays`` in ``state`` (cubeful in a GameState)."""

    def hints(self, position: Position | GameState, d1: int, d2: int) -> list[Hint]:
        """Every legal play of the roll ranked, best first."""

    def cube_decision(self, board: np.ndarray, context: CubeContext) -> CubeDecision:
        """The cube decision of the side on roll, with its equities."""

    def should_double(self, board: np.ndarray, context: CubeContext) -> bool:
        """Whether the side on roll doubles (or redoubles) now."""

    def answer_double(self, board: np.ndarray, context: CubeContext) -> Response:
        """Take, pass or beaver a double (``context`` is the doubler's)."""

    def offer_resignation(self, board: np.ndarray, context: CubeContext) -> int | None:
        """Points (1-3, times the cube) the side on roll resigns now, or None to play on."""

    def accept_resignation(self, board: np.ndarray, context: CubeContext, points: int) -> bool:
        """Whether to accept a resignation of ``points`` by the side on roll (its ``context``)."""

    def close(self) -> None:
        """Release what the player holds (an engine process)."""
