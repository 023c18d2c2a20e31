"""A TD run's settings (:mod:`gammon.train.td`), apart from its kernels: ``gammon train td``'s
options read their defaults here without loading (or compiling) the training loops."""

from __future__ import annotations

from dataclasses import dataclass

from ..nn.features import FEATURES_VERSION


@dataclass
class Settings:
    """A run's settings: with the seed they fix the weights it produces."""

    seed: int = 1
    hidden: int = 96
    workers: int = 2
    round_games: int = 100
    alpha: float = 0.1
    alpha_final: float = 0.01
    anneal: float = 50000.0
    lam: float = 0.7
    lam_until: int = 100000
    eval_every: int = 5000
    eval_games: int = 1000
    eval_seed: int = 7
    #: The input encoding (:data:`gammon.nn.features.VERSION_INPUTS`).
    features: int = FEATURES_VERSION
    #: Weights to start from instead of random ones (a second phase with another schedule).
    init: str = ""
    #: How a round's results combine: "mean" of the workers' weights, or "sum" of their changes.
    #: "sum" overshoots whatever every worker corrects alike (the overall level of the values
    #: swings round by round), so it is kept only to reproduce runs made with it.
    merge: str = "mean"

    def alpha_at(self, games: int) -> float:
        """Learning rate after ``games`` games: alpha / (1 + games / anneal), floored at alpha_final."""
        return max(self.alpha_final, self.alpha / (1.0 + games / self.anneal))

    def lam_at(self, games: int) -> float:
        return self.lam if games < self.lam_until else 0.0
