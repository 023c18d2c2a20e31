"""The bear-off evaluator's steps (:mod:`gammon.bearoff._evaluator_steps`) compiled by numba, for batches.

The same functions, not copies: each is the evaluator's plain-Python step given to :func:`gammon.compiled.kernel`
(numba keeps the machine code in its on-disk cache). :func:`evaluate_boards` calls other
steps; its compiled version is the same code with those names bound to their compiled
versions (:func:`_compiled`), since numba resolves a function's globals when it compiles it.
"""

from __future__ import annotations

import types
from collections.abc import Callable

import numpy as np

from . import _evaluator_steps as _steps
from ._perfect_hash_kernels import rank_counts
from ..compiled import kernel


def _compiled(function: Callable, signature: str, **calls: object) -> Callable:
    """``function`` compiled by numba for ``signature``, with the steps it calls by name bound to ``calls``."""
    rebound = types.FunctionType(function.__code__, {**function.__globals__, **calls}, function.__name__,
                                 function.__defaults__, function.__closure__)
    rebound.__qualname__ = function.__qualname__  # the on-disk cache is named after it
    return kernel(signature)(rebound)


#: A table's arrays, as mapped from its file (read-only; a writable array converts).
_U8, _U16, _U32, _I16 = (f"Array({t}, {n}, 'C', readonly=True)" for t, n in
                         (("uint8", 2), ("uint16", 1), ("uint32", 2), ("int16", 2)))
side_counts = kernel("(readonly(int8[::1]), int64, int64[:, ::1])")(_steps.side_counts)
dist = kernel(inline="always")(_steps.dist)
evaluate_boards = _compiled(
    _steps.evaluate_boards,
    f"(int8[:, ::1], int64, {_U8}, {_U8}, {_U32}, {_U16}, {_I16}, int64, int64, float64[:, ::1], int8[::1])",
    side_counts=side_counts, rank_counts=rank_counts, dist=dist,
)


@kernel("(readonly(int8[:, ::1]), int64)")
def covers_batch(boards, points):
    """Whether each board is a bear-off position of tables over ``points`` points."""
    counts = np.zeros((2, points), np.int64)
    out = np.zeros(boards.shape[0], np.bool_)
    for k in range(boards.shape[0]):
        out[k] = side_counts(boards[k], points, counts)
    return out
