"""The compiled part of the one-sided table's build (:mod:`gammon.bearoff.onesided`), by numba."""

from __future__ import annotations

import numpy as np

from ..movegen import BOARD_SIZE, generate_into, play_buffers
from ._perfect_hash_kernels import rank_board
from .storage import ALL_OFF, BAND, FIRST_OFF, ONE, ROLL_LIMIT
from ..compiled import kernel

#: Error codes out of the kernel.
OVERFLOW = 1
ORDER = 2


@kernel(inline="always")
def _finish(acc, out_band, out_start, out_length, out_rsum, x, which):
    """Round the 36-weighted sums to fractions of ONE, as GNU Backgammon does; 0 or an error code."""
    total = 0
    mode = 0
    best = -1
    for i in range(ROLL_LIMIT):
        acc[i] = (acc[i] + 18) // 36
        total += acc[i]
        if acc[i] > best:
            best = acc[i]
            mode = i
    acc[mode] -= total - ONE
    lo = 0
    while acc[lo] == 0:
        lo += 1
    hi = ROLL_LIMIT - 1
    while acc[hi] == 0:
        hi -= 1
    if hi - lo + 1 > BAND:
        return OVERFLOW
    s = 0
    for i in range(BAND):
        v = acc[lo + i] if lo + i <= hi else 0
        out_band[x, which, i] = v
        s += (lo + i) * v
    out_start[x, which] = lo
    out_length[x, which] = hi - lo + 1
    out_rsum[x, which] = s
    return 0


@kernel("(Array(int64, 2, 'C', readonly=True), int64, int8[:, ::1], int64[::1], int64[::1], int64, int64, "
        "uint16[:, :, ::1], uint8[:, ::1], uint8[:, ::1], int64[:, ::1])", nogil=True)
def solve_positions(binomial, points, counts, level_of, order, lo, hi, band, start, length, rsum):
    """Solve the positions ``order[lo:hi]`` (part of one level); returns 0 or an error code."""
    board = np.zeros(BOARD_SIZE, np.int8)
    out_boards, out_moves, out_counts, hashes = play_buffers()
    acc = np.zeros(ROLL_LIMIT, np.int64)
    gacc = np.zeros(ROLL_LIMIT, np.int64)
    for k in range(lo, hi):
        x = order[k]
        total = 0
        for p in range(points):
            board[p + 1] = counts[x, p]
            total += counts[x, p]
        acc[:] = 0
        gacc[:] = 0
        if total == 0:
            acc[0] = ONE * 36
            gacc[0] = ONE * 36
        else:
            gammon = total == 15  # with a checker off there is no gammon to save
            if not gammon:
                gacc[0] = ONE * 36
            for d1 in range(1, 7):
                for d2 in range(1, d1 + 1):
                    weight = 1 if d1 == d2 else 2
                    n = generate_into(board, d1, d2, out_boards, out_moves, out_counts, hashes, False)
                    best = -1
                    best_sum = np.int64(1) << 62
                    gbest = -1
                    gbest_sum = np.int64(1) << 62
                    for r in range(n):
                        j = rank_board(binomial, out_boards[r], points)
                        if level_of[j] >= level_of[x]:
                            return ORDER  # never: a play takes two pips unless it ends the race
                        if rsum[j, ALL_OFF] < best_sum:
                            best_sum = rsum[j, ALL_OFF]
                            best = j
                        if gammon and rsum[j, FIRST_OFF] < gbest_sum:
                            gbest_sum = rsum[j, FIRST_OFF]
                            gbest = j
                    s0 = start[best, ALL_OFF] + 1
                    if s0 + length[best, ALL_OFF] > ROLL_LIMIT:
                        return OVERFLOW
                    for i in range(length[best, ALL_OFF]):
                        acc[s0 + i] += weight * band[best, ALL_OFF, i]
                    if gammon:
                        s1 = start[gbest, FIRST_OFF] + 1
                        if s1 + length[gbest, FIRST_OFF] > ROLL_LIMIT:
                            return OVERFLOW
                        for i in range(length[gbest, FIRST_OFF]):
                            gacc[s1 + i] += weight * band[gbest, FIRST_OFF, i]
        code = _finish(acc, band, start, length, rsum, x, ALL_OFF)
        if code:
            return code
        code = _finish(gacc, band, start, length, rsum, x, FIRST_OFF)
        if code:
            return code
    return 0
