"""The random evaluator: every play equally likely, the floor every other evaluator must clear."""

from __future__ import annotations

import numpy as np

from .evaluator import Evaluator


class RandomEvaluator(Evaluator):
    """A uniform random win chance per board, so the best play is a uniformly random one.

    The generator is seeded (:meth:`reseed`) so games with a random player still replay.
    """

    name = "random"
    deterministic = False

    def __init__(self, seed: int | None = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | np.random.SeedSequence | None) -> None:
        self.rng = np.random.default_rng(seed)

    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        out = np.zeros((boards.shape[0], 5))
        out[:, 0] = self.rng.random(boards.shape[0])
        return out
