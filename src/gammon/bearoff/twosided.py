"""The two-sided table: exact values of races where both sides have few checkers left.

For every pair of positions with at most C checkers each on the six home points it holds,
for the side on roll, the cubeless equity (2 P(win) - 1; with checkers already off there
are no gammons) and the money-game cubeful equities with the cube owned by the side on
roll, centred, and owned by the opponent, as GNU Backgammon stores them: the value of
*rolling now* (no double this turn); the doubling decision is applied one level up, where
the opponent of the side that just moved considers doubling before its roll.

Like GNU Backgammon's, the numbers are 16-bit fixed point (+1 = 32767), each position's
value the truncated 36th of its 21 rolls' best plays, so the tables agree with its files
to the last bit. Each cube state picks its own best play. The rounding drifts from exact
real arithmetic by at most 1.3e-4 in equity (6e-5 in P(win)) over the 6x6 table, about
-1.5e-5 on average.

The side on roll's plays do not depend on the opponent's checkers (there is no contact),
so they are generated once per one-sided position by :func:`gammon.movegen.generate_into`
and reused for every opponent position. A pair is solved after every pair it can reach,
level by level of the sides' summed play depth, each level on all cores.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from numba import njit

from ..errors import BearoffCoverageError, BearoffTableError
from ..movegen import BOARD_SIZE, generate_into, play_buffers
from . import perfect_hash
from ._workers import Workers
from .perfect_hash import BINOMIAL, position_count, rank_board, unrank_batch
from .storage import Contents, Kind, PartialBuild, TableHeader, read_table, write_table

#: +1 and -1 in the 16-bit fixed point.
PLUS_ONE = 32767
MINUS_ONE = -32768
POINTS = 6
MAX_CHECKERS = 12  # 18,564 positions a side: 2.8 GB; more would not fit a machine
CUBELESS, OWNED, CENTRED, OPPONENT_OWNS = 0, 1, 2, 3
ROLLS = 21
#: Weight out of 36 of each roll in generation order (d1 = 1..6, d2 = 1..d1): doubles 1, others 2.
_WEIGHTS = np.array([1 if d1 == d2 else 2 for d1 in range(1, 7) for d2 in range(1, d1 + 1)], np.int64)


@njit(cache=True)
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
                    n = generate_into(board, d1, d2, out_boards, out_moves, out_counts, hashes)
                    if total + n > capacity:
                        capacity = 2 * capacity + n
                        grown = np.empty(capacity, np.int32)
                        grown[:total] = targets[:total]
                        targets = grown
                    for k in range(n):
                        targets[total] = rank_board(binomial, out_boards[k], points)
                        total += 1
                r += 1
                offsets[x * ROLLS + r] = total
    return offsets, targets[:total].copy()


@njit(cache=True, inline="always")
def _half(value):
    """C's ``value / 2`` on integers: truncation toward zero."""
    return value // 2 if value >= 0 else -((-value) // 2)


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True)
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


@njit(cache=True, nogil=True)
def _solve_level(values, offsets, targets, size, depth, bucket_start, bucket_items, level, j_lo, j_hi):
    """The pairs (i, j) with depth[i] + depth[j] == level and j in [j_lo, j_hi)."""
    buckets = bucket_start.shape[0] - 1
    for j in range(j_lo, j_hi):
        want = level - depth[j]
        if 0 <= want < buckets:
            for k in range(bucket_start[want], bucket_start[want + 1]):
                _solve(values, offsets, targets, size, bucket_items[k], j)
    return 0


def table_name(checkers: int, points: int = POINTS) -> str:
    return f"twosided-{points}x{checkers}.bearoff"


def build(
    path: Path,
    checkers: int = 6,
    points: int = POINTS,
    *,
    progress: Callable[[int, int], None] | None = None,
    checkpoint_seconds: float = 5.0,
    threads: int | None = None,
) -> Path:
    """Build the two-sided table into ``path``, resuming an interrupted build if one is there.

    ``progress(done, total)`` is called as positions are solved. A ``KeyboardInterrupt``
    (or any exception) saves the work done; the next call resumes. ``threads`` defaults
    to every core this process may use.
    """
    if not 1 <= checkers <= MAX_CHECKERS:
        raise BearoffTableError(f"two-sided tables hold 1 to {MAX_CHECKERS} checkers a side, not {checkers}")
    if not 1 <= points <= POINTS:
        raise BearoffTableError(f"two-sided tables span 1 to {POINTS} points, not {points}")
    path = Path(path)
    size = position_count(points, checkers)
    counts = unrank_batch(BINOMIAL, np.arange(size, dtype=np.int64), points)
    offsets, targets = successors(BINOMIAL, points, counts)
    depth, status = play_depth(offsets, targets, size)
    if status:
        raise BearoffTableError("a play that does not lower the position index: the move generator disagrees")
    bucket_items = np.argsort(depth, kind="stable").astype(np.int64)
    bucket_start = np.searchsorted(depth[bucket_items], np.arange(int(depth.max()) + 2)).astype(np.int64)
    per_depth = np.diff(bucket_start)
    solved = np.cumsum(np.convolve(per_depth, per_depth))  # pairs solved after each level
    levels = len(solved)
    partial = PartialBuild(
        path.with_name(path.name + ".partial"), Kind.TWOSIDED, points, checkers, {"values": ((size * size, 4), "<i2")}
    )
    done = partial.steps if partial.steps <= levels else 0
    workers = Workers(threads, smallest_part=16)
    try:
        values = partial.arrays["values"]
        last = time.monotonic()
        if progress:
            progress(int(solved[done - 1]) if done else 0, size * size)

        def solve(a: int, b: int, level: int) -> int:
            return _solve_level(values, offsets, targets, size, depth, bucket_start, bucket_items, level, a, b)

        while done < levels:
            workers.run(functools.partial(solve, level=done), 0, size)
            done += 1
            if progress:
                progress(int(solved[done - 1]), size * size)
            if time.monotonic() - last > checkpoint_seconds:
                partial.checkpoint(done)
                last = time.monotonic()
        header = TableHeader(Kind.TWOSIDED, points, checkers, Contents.CUBELESS | Contents.CUBEFUL, size * size)
        write_table(path, header, {"values": values})
    except BaseException:
        workers.close()  # let running parts finish before the arrays' file is flushed
        partial.checkpoint(done)
        partial.close()
        raise
    finally:
        workers.close()
    partial.discard()
    return path


def to_equity(value: int | np.ndarray) -> float | np.ndarray:
    """A stored 16-bit value as an equity in [-1, 1] (GNU Backgammon's reading of it)."""
    return (np.asarray(value, np.float64) + 0.5) / 32767.5 if isinstance(value, np.ndarray) else (value + 0.5) / 32767.5


class TwoSidedTable:
    """A loaded two-sided table, indexed by the one-sided indices of both sides.

    >>> from gammon.bearoff.defaults import twosided
    >>> table = twosided()
    >>> table.p_win([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1])  # on roll with a checker on the ace point
    1.0
    """

    def __init__(self, path: Path, *, verify: bool = True) -> None:
        self.file = read_table(path, Kind.TWOSIDED, contents=Contents.CUBELESS | Contents.CUBEFUL, verify=verify)
        header = self.file.header
        self.path = Path(path)
        self.points = header.points
        self.checkers = header.checkers
        self.size = position_count(self.points, self.checkers)
        if header.positions != self.size * self.size:
            raise BearoffTableError(f"{path}: {header.positions} positions, expected {self.size**2}")
        values = self.file["values"]
        if values.size != self.size * self.size * 4:
            raise BearoffTableError(f"{path}: values section has {values.size} entries, expected {self.size**2 * 4}")
        self.values = values.reshape(self.size * self.size, 4)

    def index(self, counts: Sequence[int]) -> int:
        return perfect_hash.table_index(counts, self.points, self.checkers)

    def covers(self, on_roll: Sequence[int], opponent: Sequence[int]) -> bool:
        return (
            all(len(c) <= self.points or not any(c[self.points :]) for c in (on_roll, opponent))
            and sum(on_roll) <= self.checkers
            and sum(opponent) <= self.checkers
        )

    def raw(self, on_roll: int | Sequence[int], opponent: int | Sequence[int]) -> np.ndarray:
        """The four stored 16-bit values: cubeless, owned, centred, opponent owns."""
        i = on_roll if isinstance(on_roll, (int, np.integer)) else self.index(on_roll)
        j = opponent if isinstance(opponent, (int, np.integer)) else self.index(opponent)
        if not (0 <= i < self.size and 0 <= j < self.size):
            raise BearoffCoverageError(f"indices ({i}, {j}) are outside [0, {self.size})")
        return self.values[int(i) * self.size + int(j)]

    def equities(
        self, on_roll: int | Sequence[int], opponent: int | Sequence[int]
    ) -> tuple[float, float, float, float]:
        """(cubeless, cube owned, centred, opponent owns) equities of the side on roll."""
        raw = self.raw(on_roll, opponent)
        return tuple(float(to_equity(int(v))) for v in raw)  # type: ignore[return-value]

    def p_win(self, on_roll: int | Sequence[int], opponent: int | Sequence[int]) -> float:
        """Cubeless probability that the side on roll wins."""
        return (1.0 + float(to_equity(int(self.raw(on_roll, opponent)[CUBELESS])))) / 2.0
