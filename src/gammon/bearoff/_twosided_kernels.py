"""The compiled part of the two-sided table's build (:mod:`gammon.bearoff.twosided`), by numba."""

from __future__ import annotations

import numpy as np

from ..movegen import BOARD_SIZE, generate_into, play_buffers
from ._perfect_hash_kernels import rank_board
from .storage import MINUS_ONE, PLUS_ONE
from ..compiled import kernel

#: The distinct rolls: 6 doubles and 15 others.
ROLLS = 21

#: Weight out of 36 of each roll in generation order (d1 = 1..6, d2 = 1..d1): doubles 1, others 2.
_WEIGHTS = np.array([1 if d1 == d2 else 2 for d1 in range(1, 7) for d2 in range(1, d1 + 1)], np.int64)


@kernel("(Array(int64, 2, 'C', readonly=True), int64, int8[:, ::1])")
def successors(binomial, points, counts):
    """Distinct successor indices of every position for each of the 21 rolls (CSR form)."""
    size = counts.shape[0]
    board = np.zeros(BOARD_SIZE, np.int8)
    out_boards, out_moves, out_counts, hashes = play_buffers()
    offsets = np.zeros(size * ROLLS + 1, np.int64)
    capacity = size * ROLLS * 4 + 64
    targets = np.empty(capacity, np.int32)
    total = 0
    for x in range(size):
        empty = True
        for p in range(points):
            board[p + 1] = counts[x, p]
            if counts[x, p]:
                empty = False
        r = 0
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                if not empty:
                    n = generate_into(board, d1, d2, out_boards, out_moves, out_counts, hashes, False)
                    if total + n > capacity:
                        capacity = 2 * capacity + n
                        grown = np.empty(capacity, np.int32)
                        for k in range(total):  # not a slice copy: numba compiles its shape check for seconds
                            grown[k] = targets[k]
                        targets = grown
                    for k in range(n):
                        targets[total] = rank_board(binomial, out_boards[k], points)
                        total += 1
                r += 1
                offsets[x * ROLLS + r] = total
    return offsets, targets[:total].copy()


@kernel(inline="always")
def _half(value):
    """C's ``value / 2`` on integers: truncation toward zero."""
    return value // 2 if value >= 0 else -((-value) // 2)


@kernel(inline="always")
def _after_cube(no_double, double_take):
    """The equity of the side on roll once it has made its best cube decision.

    It doubles when double/take (twice the value of rolling with the opponent owning the
    cube) or double/pass (+1) is at least rolling without doubling; the taker drops when
    taking is worse than -1, i.e. when the doubler's value exceeds half a point.
    """
    if double_take >= _half(no_double):
        if double_take >= PLUS_ONE // 2:
            return PLUS_ONE
        return 2 * double_take
    return no_double


@kernel(inline="always")
def _solve(values, offsets, targets, size, i, j):
    row = i * size + j
    if i == 0:
        for c in range(4):
            values[row, c] = PLUS_ONE  # the side on roll has nothing left: it has won
        return
    if j == 0:
        for c in range(4):
            values[row, c] = MINUS_ONE
        return
    t0 = 0
    t1 = 0
    t2 = 0
    t3 = 0
    base = j * size
    for r in range(ROLLS):
        b0 = -65535
        b1 = -65535
        b2 = -65535
        b3 = -65535
        for k in range(offsets[i * ROLLS + r], offsets[i * ROLLS + r + 1]):
            # After the play the opponent is on roll in (j, s); its values are negated.
            s = base + targets[k]
            v0 = np.int64(values[s, 0])
            v1 = np.int64(values[s, 1])
            v2 = np.int64(values[s, 2])
            v3 = np.int64(values[s, 3])
            e = -v0 - 1
            if e > b0:
                b0 = e
            e = -v3 - 1  # we own the cube: the opponent cannot double
            if e > b1:
                b1 = e
            e = -_after_cube(v2, v3) - 1  # centred: the opponent may double
            if e > b2:
                b2 = e
            e = -_after_cube(v1, v3) - 1  # the opponent owns it and may redouble
            if e > b3:
                b3 = e
        weight = _WEIGHTS[r]
        t0 += weight * b0
        t1 += weight * b1
        t2 += weight * b2
        t3 += weight * b3
    values[row, 0] = t0 // 36 if t0 >= 0 else -((-t0) // 36)
    values[row, 1] = t1 // 36 if t1 >= 0 else -((-t1) // 36)
    values[row, 2] = t2 // 36 if t2 >= 0 else -((-t2) // 36)
    values[row, 3] = t3 // 36 if t3 >= 0 else -((-t3) // 36)


@kernel("(int64[::1], int32[::1], int64)")
def play_depth(offsets, targets, size):
    """The longest sequence of plays from each position to all off (0 for none left).

    A position's value needs only positions of smaller depth sum, so the (on roll,
    opponent) pairs with one depth sum are independent: one parallel step each. Returns
    -1 if some play does not lower the index, which the dynamic program relies on.
    """
    depth = np.zeros(size, np.int64)
    for x in range(1, size):
        deepest = -1
        for k in range(offsets[x * ROLLS], offsets[(x + 1) * ROLLS]):
            s = targets[k]
            if s >= x:
                return depth, -1
            if depth[s] > deepest:
                deepest = depth[s]
        depth[x] = deepest + 1
    return depth, 0


@kernel("(int16[:, ::1], int64[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1], int64, int64, int64)", nogil=True)
def solve_level(values, offsets, targets, size, depth, bucket_start, bucket_items, level, j_lo, j_hi):
    """The pairs (i, j) with depth[i] + depth[j] == level and j in [j_lo, j_hi)."""
    buckets = bucket_start.shape[0] - 1
    for j in range(j_lo, j_hi):
        want = level - depth[j]
        if 0 <= want < buckets:
            for k in range(bucket_start[want], bucket_start[want + 1]):
                _solve(values, offsets, targets, size, bucket_items[k], j)
    return 0
