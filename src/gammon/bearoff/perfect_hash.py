"""Benjamin and Ross's perfect hash: one side's bear-off position <-> a dense index.

A position is the checker counts on points 1..P (the ace point first), at most 15 in all.
The paper writes every position as its 15 checkers' points in non-decreasing order (0 for
borne off) and numbers those lists lexicographically. Its sum of terms reduces to

    rank = sum over i = 0..P-1 of C(P - i + r_i - 1, P - i)   (0 when r_i = 0)

where ``r_i`` is the number of checkers above point ``i``. Two properties make this the
right order for the tables:

* every legal move lowers the index (a checker moving down makes the sorted list
  lexicographically smaller), so a dynamic program in index order always finds its
  successors done;
* the total count never enters the formula, so the positions with at most ``c`` checkers
  are exactly the indices below ``C(P + c, c)``: the two-sided table's one-side indices
  are a prefix of the one-sided table's.

Both directions take O(P + 15) steps with precomputed binomials. The steps are plain Python
that numba can compile (:mod:`gammon.bearoff._perfect_hash_steps`): one position runs them as
Python (a lookup in a built table loads no numba); the batch kernels and the table builders run
them compiled, from :mod:`gammon.bearoff._perfect_hash_kernels`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import BearoffCoverageError, InvalidPositionError
from ._perfect_hash_steps import BINOMIAL, MAX_CHECKERS, MAX_POINTS, rank_board, rank_counts, unrank_into

__all__ = ["BINOMIAL", "MAX_CHECKERS", "MAX_POINTS", "position_count", "rank", "rank_batch", "rank_board",
           "rank_counts", "unrank", "unrank_batch", "unrank_into"]

def position_count(points: int, checkers: int) -> int:
    """How many positions have at most ``checkers`` checkers on ``points`` points: C(P + c, c)."""
    return int(BINOMIAL[points + checkers, checkers])


def rank_batch(binomial: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Indices of many positions: ``counts`` is (N, P)."""
    from . import _perfect_hash_kernels

    return _perfect_hash_kernels.rank_batch(binomial, counts)


def unrank_batch(binomial: np.ndarray, indices: np.ndarray, points: int) -> np.ndarray:
    """Counts (N, P) of many indices, as int8."""
    from . import _perfect_hash_kernels

    return _perfect_hash_kernels.unrank_batch(binomial, indices, points)


def _check_points(points: int) -> None:
    if not 1 <= points <= MAX_POINTS:
        raise InvalidPositionError(f"bear-off positions span 1 to {MAX_POINTS} points, got {points}")


def rank(counts: Sequence[int], points: int | None = None) -> int:
    """The index of a bear-off position given as its counts on points 1..P, ace point first.

    >>> rank([0, 0, 0, 0, 0, 1])  # one checker on the six-point
    6
    >>> rank([3, 3, 2, 0, 2, 1])  # the paper's example: 4 off, then 3, 3, 2, 0, 2, 1
    8887
    """
    values = [int(c) for c in counts]
    if points is None:
        points = len(values)
    _check_points(points)
    if len(values) > points and any(values[points:]):
        raise InvalidPositionError(f"counts {values} have checkers beyond point {points}")
    values = (values + [0] * points)[:points]
    if any(c < 0 for c in values):
        raise InvalidPositionError(f"counts {values} have a negative entry")
    if sum(values) > MAX_CHECKERS:
        raise InvalidPositionError(f"counts {values} hold {sum(values)} checkers; at most {MAX_CHECKERS}")
    return int(rank_counts(BINOMIAL, values, points))


def unrank(index: int, points: int = 6, checkers: int = MAX_CHECKERS) -> tuple[int, ...]:
    """The counts on points 1..``points`` of position ``index`` (the inverse of :func:`rank`).

    >>> unrank(8887)
    (3, 3, 2, 0, 2, 1)
    """
    _check_points(points)
    size = position_count(points, checkers)
    if not 0 <= index < size:
        raise InvalidPositionError(f"index {index} is outside [0, {size}) for {points} points, {checkers} checkers")
    out = np.zeros(points, np.int64)
    unrank_into(BINOMIAL, np.int64(index), points, out)
    return tuple(int(c) for c in out)


def table_index(counts: Sequence[int], points: int, checkers: int) -> int:
    """The index of ``counts`` (ace point first) in a table of ``points`` x ``checkers``.

    Raises :class:`BearoffCoverageError` when the table does not hold the position.
    """
    values = [int(c) for c in counts]
    if len(values) > points and any(values[points:]):
        raise BearoffCoverageError(f"counts {values} have checkers beyond point {points} of this table")
    if sum(values) > checkers:
        raise BearoffCoverageError(f"counts {values} hold {sum(values)} checkers; this table holds {checkers}")
    return rank(values[:points] + [0] * (points - len(values)), points)
