"""The perfect hash's steps (:mod:`gammon.bearoff.perfect_hash`), as plain Python that numba can compile.

One position runs them as Python (a lookup in a built table loads no numba); the batch kernels
and the table builders run them compiled (:mod:`gammon.bearoff._perfect_hash_kernels`), with
the binomials below.
"""

from __future__ import annotations

import numpy as np

MAX_POINTS = 12
MAX_CHECKERS = 15
_ROWS = MAX_POINTS + MAX_CHECKERS + 2


def _binomials() -> np.ndarray:
    table = np.zeros((_ROWS, _ROWS), np.int64)
    for n in range(_ROWS):
        table[n, 0] = 1
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


#: ``BINOMIAL[n, k]`` = C(n, k) for the sizes the tables need.
BINOMIAL = _binomials()


def rank_counts(binomial, counts, points):
    """Index of the counts on points 1..``points`` (``counts[0]`` is the ace point)."""
    index = np.int64(0)
    above = 0  # checkers above point i, summed from the top down in one pass
    for i in range(points - 1, -1, -1):
        above += counts[i]
        if above:
            index += binomial[points - i + above - 1, points - i]
    return index


def rank_board(binomial, board, points):
    """Index of the mover's checkers on a kernel board (points 1..``points`` of ``board``)."""
    index = np.int64(0)
    above = 0
    for i in range(points - 1, -1, -1):
        above += board[i + 1]
        if above:
            index += binomial[points - i + above - 1, points - i]
    return index


def unrank_into(binomial, index, points, out):
    """Write the counts of position ``index`` into ``out[0..points)``; returns the checker total.

    The positions on ``p`` points with fewer than ``t`` checkers number C(p + t - 1, p) (0
    for t = 0): each block of positions with one checker total starts there.
    """
    remaining = np.int64(index)
    total = 0
    while total < 15 and binomial[points + total, points] <= remaining:
        total += 1
    above = total
    for i in range(points):
        if above > 0:
            remaining -= binomial[points - i + above - 1, points - i]
        # The largest number of checkers above point i + 1 whose block starts at or below
        # what is left of the index.
        higher = above
        while higher > 0 and binomial[points - i + higher - 2, points - i - 1] > remaining:
            higher -= 1
        out[i] = above - higher
        above = higher
    return total
