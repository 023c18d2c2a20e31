"""The rollout player: a bot whose candidate plays are each rolled out before it chooses.

``rollout:TRIALS[:PLAYER]`` in :mod:`gammon.players`: the inner bot (``nn`` by default) scores
every play of the roll at its depth; the candidates its first move filter keeps (as for a
deeper ply) are each rolled out ``TRIALS`` times with the same seed -- the same dice for
every candidate, so the luck they share cancels from their comparison -- and ranked by the
rollouts' equities (cubeful with a game state's cube). Cube decisions, resignations and the
rest are the inner bot's: a cubeful rollout of both cube branches per question is left out.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import movegen
from ..bots import Bot
from ..cube.context import CubeContext
from ..evaluation import CubeDecision, Hint, Probabilities, Response
from ..play import Play
from ..position import LegalPlays, Position
from ..state import GameState
from ..variant import Variant
from .run import RolloutError, RolloutResult
from .trial import Roller


class RolloutPlayer:
    """Ranks a roll's candidate plays by rollouts of ``trials`` trials with ``inner``'s plays."""

    def __init__(self, inner: Bot, trials: int, seed: int = 0, truncate: int | None = None, name: str | None = None) -> None:
        if not isinstance(inner, Bot):
            raise RolloutError(f"rollouts need one of gammon's own players (an evaluator and a search), got {inner!r}")
        if trials < 2:
            raise RolloutError(f"a rollout player needs at least 2 trials, got {trials}")
        self.inner = inner
        self.trials = trials
        self.seed = seed
        self.roller = Roller(inner, truncate)
        self.name = name or f"rollout:{trials}:{inner.name}"

    def reseed(self, seed: int | np.random.SeedSequence) -> None:
        """The rollouts' dice and the inner bot's noise restart from ``seed``."""
        if isinstance(seed, np.random.SeedSequence):
            self.seed = int(seed.generate_state(1)[0] & 0x7FFFFFFF)
        else:
            self.seed = int(seed)
        self.inner.reseed(seed)

    @property
    def variant(self) -> Variant:
        """The standard game: rollouts (:class:`~.trial.Roller`) play no other, and refuse to be set to one."""
        return self.inner.variant

    @variant.setter
    def variant(self, variant: Variant) -> None:
        variant.require_standard(self.name)

    # -- the ranking ------------------------------------------------------------------------------
    def rollout_after(self, after: np.ndarray, context: CubeContext | None,
                      interrupt: Callable[[], bool] | None = None) -> RolloutResult:
        """The rollout of a board after a play (the mover's view), for the mover."""
        opponent = None if context is None else context.flip()
        samples = self.roller.trials(movegen.flip_board(after), opponent, self.seed, 0, self.trials, interrupt)
        return RolloutResult.from_samples(samples)

    def ranked(self, board: np.ndarray, d1: int, d2: int, context: CubeContext | None,
               interrupt: Callable[[], bool] | None = None) -> tuple[list[Hint], list[int]]:
        """Hints best first, and the index (movegen's order) of each hint's play; ``interrupt``
        (asked before each trial) stops with :class:`~gammon.bots.search.SearchInterrupted`."""
        analysis = self.inner.analyse(board, d1, d2, full=True, context=context)
        values = analysis.equities()
        candidates = self.inner.search.filters[0].select(values)
        scored: list[tuple[float, int, Probabilities, float | None]] = []
        for index in candidates:
            result = self.rollout_after(analysis.boards[index], context, interrupt)
            probabilities = result.probabilities.flip()
            cubeful = None if result.cubeful_equity is None else -result.cubeful_equity
            scored.append((probabilities.equity if cubeful is None else cubeful, int(index), probabilities, cubeful))
        scored.sort(key=lambda item: (-item[0], item[1]))
        chosen = {index for _, index, _, _ in scored}
        rest = [int(i) for i in analysis.ranking() if int(i) not in chosen]
        best = scored[0][0]
        hints: list[Hint] = []
        order: list[int] = []
        for equity, index, probabilities, cubeful in scored:
            play = Play.from_array(analysis.moves[index], int(analysis.counts[index]))
            hints.append(Hint(len(hints) + 1, play, probabilities, self.inner.ply, best - equity, cubeful))
            order.append(index)
        for index in rest:
            play = Play.from_array(analysis.moves[index], int(analysis.counts[index]))
            equity = float(values[index])
            hints.append(Hint(len(hints) + 1, play, analysis.probabilities_of(index), int(analysis.plies[index]),
                              best - equity, equity if context is not None else None))
            order.append(index)
        return hints, order

    # -- the Player protocol ----------------------------------------------------------------------
    def hints(self, position: Position | GameState, d1: int, d2: int) -> list[Hint]:
        """The candidates rolled out and ranked first (cubeful with a game state's cube), the rest after."""
        context = CubeContext.from_state(position) if isinstance(position, GameState) else None
        if isinstance(position, GameState):
            self.variant = position.variant
            position = position.position
        return self.ranked(position.array(), d1, d2, context)[0]

    def choose_board(self, board: np.ndarray, d1: int, d2: int, context: CubeContext | None = None) -> np.ndarray:
        _hints, order = self.ranked(np.ascontiguousarray(board, np.int8), d1, d2, context)
        children, _, _ = movegen.generate(np.ascontiguousarray(board, np.int8), d1, d2)
        return children[order[0]]

    def choose_play(self, position: Position, d1: int, d2: int) -> Play:
        return self.ranked(position.array(), d1, d2, None)[0][0].play

    def __call__(self, state: object, legal_plays: LegalPlays) -> Play:
        d1, d2 = legal_plays.dice
        self.variant = legal_plays.variant
        context = CubeContext.from_state(state) if isinstance(state, GameState) else None
        _, order = self.ranked(legal_plays.position.array(), d1, d2, context)
        return legal_plays[order[0]]

    def cube_decision(self, board: np.ndarray, context: CubeContext) -> CubeDecision:
        return self.inner.cube_decision(board, context)

    def should_double(self, board: np.ndarray, context: CubeContext) -> bool:
        return self.inner.should_double(board, context)

    def answer_double(self, board: np.ndarray, context: CubeContext) -> Response:
        return self.inner.answer_double(board, context)

    def offer_resignation(self, board: np.ndarray, context: CubeContext) -> int | None:
        return self.inner.offer_resignation(board, context)

    def accept_resignation(self, board: np.ndarray, context: CubeContext, points: int) -> bool:
        return self.inner.accept_resignation(board, context, points)

    def close(self) -> None:
        self.inner.close()

    def __repr__(self) -> str:
        return f"RolloutPlayer({self.name!r})"
