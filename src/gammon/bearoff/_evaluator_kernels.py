"""The bear-off evaluator's steps (:mod:`gammon.bearoff._evaluator_steps`) compiled by numba, for batches.

The same functions, not copies: each is the evaluator's plain-Python step given to ``njit``
(numba keeps the machine code in its on-disk cache). :func:`evaluate_boards` calls other
steps; its compiled version is the same code with those names bound to their compiled
versions (:func:`_compiled`), since numba resolves a function's globals when it compiles it.
"""

from __future__ import annotations

import types
from collections.abc import Callable

import numpy as np
from numba import njit

from . import _evaluator_steps as _steps
from ._perfect_hash_kernels import rank_counts


def _compiled(function: Callable, **calls: object) -> Callable:
    """``function`` compiled by numba, with the steps it calls by name bound to ``calls``."""
    rebound = types.FunctionType(function.__code__, {**function.__globals__, **calls}, function.__name__,
                                 function.__defaults__, function.__closure__)
    rebound.__qualname__ = function.__qualname__  # the on-disk cache is named after it
    return njit(cache=True)(rebound)


side_counts = njit(cache=True)(_steps.side_counts)
dist = njit(cache=True, inline="always")(_steps.dist)
evaluate_boards = _compiled(_steps.evaluate_boards, side_counts=side_counts, rank_counts=rank_counts, dist=dist)


@njit(cache=True)
def covers_batch(boards, points):
    """Whether each board is a bear-off position of tables over ``points`` points."""
    counts = np.zeros((2, points), np.int64)
    out = np.zeros(boards.shape[0], np.bool_)
    for k in range(boards.shape[0]):
        out[k] = side_counts(boards[k], points, counts)
    return out
