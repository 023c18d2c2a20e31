"""The bear-off evaluator's steps (:mod:`gammon.bearoff.evaluator`), as plain Python that numba can compile.

One board runs them as Python (a look at a built table loads no numba); batches run them compiled
(:mod:`gammon.bearoff._evaluator_kernels`).
"""

from __future__ import annotations

import numpy as np

from ._perfect_hash_steps import BINOMIAL, rank_counts
from .storage import ALL_OFF, FIRST_OFF, ONE

_ROLLS = 64


def side_counts(board, points, out):
    """Counts of the mover (``out[0]``) and opponent (``out[1]``) on their points 1..P.

    Returns False when either side has a checker on the bar, beyond point P, or when the
    opponent's checkers could still meet the mover's.
    """
    for p in range(points):
        out[0, p] = 0
        out[1, p] = 0
    if board[25] != 0 or board[0] != 0:
        return False
    for point in range(1, 25):
        n = board[point]
        if n > 0:
            if point > points:
                return False
            out[0, point - 1] = n
        elif n < 0:
            own = 25 - point  # the opponent's numbering
            if own > points:
                return False
            out[1, own - 1] = -n
    return True


def dist(start, length, offset, data, x, which, out):
    """Fill ``out`` with P(exactly n rolls) as floats."""
    out[:] = 0.0
    first = start[x, which]
    base = offset[x, which]
    for i in range(length[x, which]):
        out[first + i] = data[base + i] / ONE


def evaluate_boards(boards, points, start, length, offset, data, ts_values, ts_checkers, ts_size, out, status):
    """The five probabilities of the side on roll of each board into ``out``; ``status[k]`` 1
    when board ``k`` is not a bear-off position of the tables."""
    counts = np.zeros((2, points), np.int64)
    a = np.zeros(_ROLLS)
    b = np.zeros(_ROLLS)
    fa = np.zeros(_ROLLS)
    fb = np.zeros(_ROLLS)
    for k in range(boards.shape[0]):
        board = boards[k]
        out[k, :] = 0.0
        if not side_counts(board, points, counts):
            status[k] = 1
            continue
        status[k] = 0
        mover = 0
        opponent = 0
        six = True
        for p in range(points):
            mover += counts[0, p]
            opponent += counts[1, p]
            if p >= 6 and (counts[0, p] or counts[1, p]):
                six = False
        i = rank_counts(BINOMIAL, counts[0], points)
        j = rank_counts(BINOMIAL, counts[1], points)
        if ts_size > 0 and six and mover <= ts_checkers and opponent <= ts_checkers:
            # The two-sided table's indices are the one-sided ones of the six home points.
            i6 = rank_counts(BINOMIAL, counts[0, :6], 6)
            j6 = rank_counts(BINOMIAL, counts[1, :6], 6)
            e = (ts_values[i6 * ts_size + j6, 0] + 0.5) / 32767.5
            out[k, 0] = (1.0 + e) / 2.0
            continue
        dist(start, length, offset, data, i, ALL_OFF, a)
        dist(start, length, offset, data, j, ALL_OFF, b)
        dist(start, length, offset, data, i, FIRST_OFF, fa)
        dist(start, length, offset, data, j, FIRST_OFF, fb)
        # Tails: P(opponent needs >= n rolls), P(first off >= n).
        win = 0.0
        win_gammon = 0.0
        lose_gammon = 0.0
        tail_b = 1.0
        tail_fb = 1.0
        tail_fa = 1.0
        for n in range(_ROLLS):
            # The mover finishes on its n-th roll, after the opponent's n - 1.
            win += a[n] * tail_b
            tail_b -= b[n]
            if n == 0:
                tail_fb -= fb[0]  # an opponent with a checker off cannot be gammoned
            win_gammon += a[n] * tail_fb
            if n > 0:
                tail_fb -= fb[n]
            # The opponent finishes on its n-th roll, after the mover's n.
            tail_fa -= fa[n]
            lose_gammon += b[n] * tail_fa
        out[k, 0] = min(max(win, 0.0), 1.0)
        out[k, 1] = min(max(win_gammon, 0.0), out[k, 0])
        out[k, 3] = min(max(lose_gammon, 0.0), 1.0 - out[k, 0])
