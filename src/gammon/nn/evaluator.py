"""The neural net as a bots :class:`~gammon.bots.Evaluator`, and the shipped weights.

The ``nn`` player (:func:`gammon.players.load_player`) loads the weights in ``gammon/data/nn.npz`` (or the file named by
the ``GAMMON_NN_WEIGHTS`` environment variable) and hands the bear-off to the exact tables
when they are available, through :class:`~gammon.bots.CompositeEvaluator`.
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from ..bots.evaluator import CompositeEvaluator, Evaluator, EvaluatorKernel, load_bearoff
from .network import NET_NAMES, Network, NetworkFileError, kernel_boards, kernel_children, net_of

#: Where the shipped weights live inside the package.
SHIPPED = "nn.npz"
ENVIRONMENT = "GAMMON_NN_WEIGHTS"


def default_weights_path() -> Path:
    """The weights ``nn`` loads: ``$GAMMON_NN_WEIGHTS`` if set, else the package's own."""
    override = os.environ.get(ENVIRONMENT)
    if override:
        return Path(override)
    return Path(str(resources.files("gammon.data").joinpath(SHIPPED)))


@lru_cache(maxsize=4)
def _load(path: str) -> Network:
    return Network.load(path)


def load_network(path: str | Path | None = None) -> Network:
    """The network of a weights file (default: :func:`default_weights_path`), cached per path."""
    if path is not None:
        return _load(str(path))
    try:
        return _load(str(default_weights_path()))
    except NetworkFileError as error:
        if os.environ.get(ENVIRONMENT):
            raise NetworkFileError(f"{error}; it is named by {ENVIRONMENT}: "
                                   "fix it, or unset it for the shipped weights") from None
        raise


class NNEvaluator(Evaluator):
    """Scores boards after a play with the contact or race net, batched over all of them."""

    name = "nn"

    def __init__(self, network: Network | None = None) -> None:
        self.network = network if network is not None else load_network()

    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        return self.network.evaluate(boards)

    def judges(self, boards: np.ndarray) -> list[str]:
        """Which of the net's nets judges each board: "contact net", "race net" or "crashed net"."""
        return [name if name == "game over" else f"{NET_NAMES[net_of(board)]} net"
                for name, board in zip(super().judges(boards), np.ascontiguousarray(boards, np.int8))]

    def kernel(self) -> EvaluatorKernel:
        """The compiled forward pass over the net's weights (the same one :meth:`_evaluate` runs)."""
        return EvaluatorKernel(kernel_children, kernel_boards, self.network.arrays(), same=True)


def nn_evaluator(path: str | Path | None = None, bearoff: bool = True) -> Evaluator:
    """The ``nn`` player's evaluator: the net, with the exact bear-off tables where they cover."""
    base = NNEvaluator(load_network(path))
    return CompositeEvaluator(base, load_bearoff()) if bearoff else base


__all__ = ["NNEvaluator", "NetworkFileError", "default_weights_path", "load_network", "nn_evaluator"]
