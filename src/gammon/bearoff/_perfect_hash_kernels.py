"""The perfect hash's steps (:mod:`gammon.bearoff.perfect_hash`) compiled by numba, and its batch kernels.

The same functions, not copies: each step is that module's plain-Python one given to
:func:`gammon.compiled.kernel` (numba keeps the machine code in its on-disk cache). Kernels elsewhere in the
bear-off package call the compiled steps from here.
"""

from __future__ import annotations

import numpy as np

from . import _perfect_hash_steps as _steps
from ..compiled import kernel

rank_counts = kernel("(Array(int64, 2, 'C', readonly=True), int64[:], int64)")(_steps.rank_counts)
rank_board = kernel("(Array(int64, 2, 'C', readonly=True), int8[:], int64)")(_steps.rank_board)
unrank_into = kernel("(Array(int64, 2, 'C', readonly=True), int64, int64, int8[::1])")(_steps.unrank_into)


@kernel("(Array(int64, 2, 'C', readonly=True), int64[:, ::1])")
def rank_batch(binomial, counts):
    """Indices of many positions: ``counts`` is (N, P)."""
    n = counts.shape[0]
    points = counts.shape[1]
    out = np.empty(n, np.int64)
    for k in range(n):
        out[k] = rank_counts(binomial, counts[k], points)
    return out


@kernel("(Array(int64, 2, 'C', readonly=True), int64[::1], int64)")
def unrank_batch(binomial, indices, points):
    """Counts (N, P) of many indices."""
    n = indices.shape[0]
    out = np.zeros((n, points), np.int8)
    for k in range(n):
        unrank_into(binomial, indices[k], points, out[k])
    return out
